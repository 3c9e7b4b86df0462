// Module hooks for the test processes: TypeScript in, JavaScript out, types stripped by esbuild
// (no type check: `pnpm typecheck` does that), with an inline source map so that stack traces
// and coverage point at the .ts lines.
//
// Why not ts-node (tap's default): it loads the TypeScript compiler into every test process and
// transpiles each imported file again in each. Why not tsx: it writes each module on one line
// (esbuild's minifyWhitespace), and coverage counted per line then calls a function covered
// when anything on its line ran.
import { readFile } from 'node:fs/promises'
import { transform } from 'esbuild'

const TS = /\.[cm]?ts$/

/**
 * The sources import each other as `./x.js` (NodeNext resolution, as the build emits them). In a
 * test process the `.js` file is the `.ts` beside it.
 */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\.{1,2}\/|^file:/.test(specifier) || !/\.[cm]?js$/.test(specifier)) throw error
    return nextResolve(specifier.replace(/js$/, 'ts'), context)
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return nextLoad(url, context)
  const path = new URL(url).pathname
  const source = await readFile(path, 'utf8')
  const { code } = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
  })
  return { format: 'module', source: code, shortCircuit: true }
}
