// Used by the test processes' module hooks (typescript-hooks.mjs): TypeBox, loaded as one bundle.
//
// TypeBox ships as ~680 ES modules. On Node 20 every ES module a test process loads passes
// through the module-hooks thread (tap's process-info hook puts one in every test process, and
// ours strips TypeScript there), which made loading TypeBox cost ~1 s of CPU in each test
// process that touches the domain (0.4 s without hooks): about a third of the suite's CPU.
// Here its entry points are bundled once by esbuild, with the modules they share split into
// common chunks, so that `typebox`, `typebox/compile`, … still share one copy of each module
// (one Kind, one error class), and a test process loads a few files instead. It is TypeBox's own
// code, unchanged; only the test processes load it so. The bundle is kept in
// node_modules/.cache/, named by TypeBox's version, and made by `pnpm test` before the suites
// (or by the first test process that needs it, under `npx tap`: written beside, then renamed
// into place, so that processes racing to make it agree).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const CACHE = fileURLToPath(new URL('../../node_modules/.cache/test-bundles/', import.meta.url))

/** A package directory (…/node_modules/typebox) from the URL of one of its files. */
function packageDirOf(url) {
  const path = fileURLToPath(url)
  const at = path.lastIndexOf('/node_modules/typebox/')
  return at === -1 ? undefined : path.slice(0, at + '/node_modules/typebox'.length)
}

const bundles = new Map()

/** Bundles the package at `dir` (every entry point its exports name), once; resolves with the bundle's directory. */
function bundleOf(dir) {
  let made = bundles.get(dir)
  if (made === undefined) {
    made = make(dir)
    bundles.set(dir, made)
  }
  return made
}

async function make(dir) {
  const { version, exports } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const out = join(CACHE, `typebox-${version}`)
  if (existsSync(out)) return out
  const entryPoints = {}
  for (const target of Object.values(exports)) {
    const file = typeof target === 'string' ? target : target.import ?? target.default
    entryPoints[relative('build', file).replace(/\.mjs$/, '')] = join(dir, file)
  }
  const scratch = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}`
  await build({ entryPoints, outdir: scratch, bundle: true, splitting: true, format: 'esm', platform: 'node', outExtension: { '.js': '.mjs' }, logLevel: 'silent' })
  mkdirSync(dirname(out), { recursive: true })
  try {
    renameSync(scratch, out)
  } catch (error) {
    // Another process put its bundle there first: the same files.
    rmSync(scratch, { recursive: true, force: true })
    if (!existsSync(out)) throw error
  }
  return out
}

/** The URL to load instead of `url` (a file TypeBox's exports name), or `url` itself. */
export async function bundledUrl(url) {
  const dir = url.startsWith('file:') ? packageDirOf(url) : undefined
  if (dir === undefined) return url
  const bundle = await bundleOf(dir)
  const file = join(bundle, relative(join(dir, 'build'), fileURLToPath(url)))
  return existsSync(file) ? pathToFileURL(file).href : url
}

// `node scripts/tap/bundled-packages.mjs` (scripts/test.mjs, beside the build): makes the bundle
// before the suites start, rather than in the first test processes, which would all race to.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const domain = new URL('../../packages/domain/package.json', import.meta.url)
  await bundledUrl(pathToFileURL(createRequire(domain).resolve('typebox')).href)
}
