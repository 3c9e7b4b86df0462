// Module hooks for the test processes: TypeScript in, JavaScript out, types stripped by esbuild
// (no type check: `pnpm typecheck` does that), with an inline source map so that stack traces
// and coverage point at the .ts lines.
//
// Why not ts-node (tap's default): it loads the TypeScript compiler into every test process and
// transpiles each imported file again in each. Why not tsx: it writes each module on one line
// (esbuild's minifyWhitespace), and coverage counted per line then calls a function covered
// when anything on its line ran.
//
// Known limits: the hooks are given to each test process by `--import` with a path relative to
// the package directory (taprc.base.yaml), so a test that changes directory must not start a
// worker or a child afterwards; and they answer .ts files before tap's process-info hook sees
// them, so `tap --changed` and watch mode (unused here) would not know which sources a test
// loads. Coverage is not affected: it is V8's, through the source maps.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'
import { bundledUrl } from './bundled-packages.mjs'

const TS = /\.[cm]?ts$/
// The compiler options the build uses (esbuild reads those that change the output: the target's
// class-field semantics, verbatimModuleSyntax, decorators, …), so tests run what the build emits.
const TSCONFIG = JSON.parse(await readFile(new URL('../../tsconfig.base.json', import.meta.url), 'utf8'))

/**
 * The sources import each other as `./x.js` (NodeNext resolution, as the build emits them). In a
 * test process the `.js` file is the `.ts` beside it.
 */
export async function resolve(specifier, context, nextResolve) {
  try {
    const resolved = await nextResolve(specifier, context)
    return specifier === 'typebox' || specifier.startsWith('typebox/') ? { ...resolved, url: await bundledUrl(resolved.url) } : resolved
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\.{1,2}\/|^file:/.test(specifier) || !/\.[cm]?js$/.test(specifier)) throw error
    try {
      return await nextResolve(specifier.replace(/js$/, 'ts'), context)
    } catch {
      // Neither exists: say so of the file the source names.
      throw error
    }
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:')) return nextLoad(url, context)
  const path = fileURLToPath(url)
  if (!TS.test(path)) return nextLoad(url, context)
  const source = await readFile(path, 'utf8')
  const { code } = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw: TSCONFIG,
  })
  return { format: 'module', source: code, shortCircuit: true }
}
