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

/**
 * TypeScript sources are stripped here. Every other ES module file (the packages' dist/, the
 * dependencies) is read here too rather than handed on: the next hook is tap's process-info
 * hook, which reads each such file again to record its line lengths and posts it to the main
 * thread, work that only its coverage of files outside src/ and its `--changed` mode use (no
 * package counts coverage outside its own src/, taprc.base.yaml's coverage-map): about 0.2 s of
 * CPU in each test process. CommonJS, JSON and built-ins go on down the chain.
 */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:')) return nextLoad(url, context)
  const path = fileURLToPath(url)
  if (!TS.test(path)) {
    if (context.format !== 'module') return nextLoad(url, context)
    return { format: 'module', source: await readFile(path), shortCircuit: true }
  }
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
