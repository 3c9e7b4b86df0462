#!/usr/bin/env node
// `pnpm test`: the build (without its type check), then every package's node-tap suite, two
// packages at a time (the longest first, two test files at a time each, each package's output
// printed whole when it ends), then the tests that measure latency alone on the machine. The
// type check and the lint are `pnpm lint`, a command of their own (the README's test line runs
// both). Ends with each package's wall time and one summary line over all packages, which CI and
// the notes read: "Tests: N passed, N failed, N skipped".
// The browser test needs Chromium (packages/console/README.md; .ci/run installs it).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const totals = { pass: 0, fail: 0, skip: 0 }
let failed = false
const running = new Set()

/** Runs `command` in its own process group; resolves with its exit code and its output, echoed as it comes. */
function run(command, args, { echo = true, cwd = root } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    running.add(child)
    let output = ''
    const take = (chunk) => {
      output += chunk
      if (echo) process.stdout.write(chunk)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('close', (code) => {
      running.delete(child)
      resolve({ code, output })
    })
  })
}

/** Adds tap's closing lines ("# { total: 12, pass: 11, fail: 1, skip: 2 }") to the totals. */
function count(output) {
  for (const [, rest] of output.matchAll(/# \{ total: \d+([^}]*)\}/g)) {
    for (const [, key, value] of rest.matchAll(/(\w+): (\d+)/g)) if (key in totals) totals[key] += Number(value)
  }
}

/** Each package's wall time, from the last "# time=" line tap prints for it ("packages/cli test: # time=1234.5ms"). */
function wallTimes(output) {
  const seconds = new Map()
  for (const [, name, ms] of output.matchAll(/^packages\/(\S+) test: # time=([\d.]+)ms$/gm)) seconds.set(name, Number(ms) / 1000)
  return [...seconds].map(([name, time]) => `${name} ${time.toFixed(1)} s`).join(', ')
}

/** Kills every process group still running (tap runs, their test processes, the servers they started). */
function stopAll() {
  for (const child of running) try { process.kill(-child.pid, 'SIGKILL') } catch { /* gone */ }
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { stopAll(); process.exit(130) })

// Two packages at a time, the longest first (their wall times on the 2-core machine), so that
// the short ones fill the end instead of one long one running alone; a package missing from the
// list (a new one) runs after them.
const LONGEST_FIRST = ['cli', 'http', 'event-store', 'bench', 'projector', 'domain', 'console', 'webhooks', 'merkle', 'keys', 'personal-data']
const tested = readdirSync(join(root, 'packages')).filter((name) => {
  const manifest = join(root, 'packages', name, 'package.json')
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test !== undefined
})
const queue = [...LONGEST_FIRST.filter((name) => tested.includes(name)), ...tested.filter((name) => !LONGEST_FIRST.includes(name))]
let suitesOutput = ''
/** Runs the package's own tap with `args` in its directory. */
function tap(name, args, options = {}) {
  return run('./node_modules/.bin/tap', args, { ...options, cwd: join(root, 'packages', name) })
}
/**
 * Whether the package's tap enforces coverage (a `.taprc` without `allow-incomplete-coverage`:
 * domain, keys, merkle, at 100%). Only those measure it here: measuring costs each test process
 * about 15% more CPU (the event store's suite 27 against 32 s), which on two cores put the
 * whole suite past four minutes, and the other packages only report theirs: `npx tap` in the
 * package shows it.
 */
function enforcesCoverage(name) {
  const taprc = join(root, 'packages', name, '.taprc')
  return !existsSync(taprc) || !/^allow-incomplete-coverage: true$/m.test(readFileSync(taprc, 'utf8'))
}

/** Runs one package's suite (two test files at a time) and prints its output whole, each line prefixed with the package. */
async function suite(name) {
  const { code, output } = await tap(name, ['--jobs=2', ...(enforcesCoverage(name) ? [] : ['--disable-coverage'])], { echo: false })
  const prefixed = output.replace(/\n$/, '').split('\n').map((line) => `packages/${name} test: ${line}\n`).join('')
  process.stdout.write(prefixed)
  suitesOutput += prefixed
  failed ||= code !== 0
}
const lane = async () => {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) await suite(name)
}
// First the build, emitted without its type check (`pnpm build:emit`: the JavaScript `pnpm build`
// emits, in 6 s instead of 13 s on a fresh clone; `pnpm lint` type-checks), and beside it tap's
// test class for the plugin list (taprc.base.yaml), which tap would otherwise rebuild in the
// first suites when it differs from the one built: two runs must not build it at once. (Leaving
// it to the first package's run and starting the second once that one wrote was tried: on a
// fresh clone the two raced, and the cli suite took 300 s instead of 146 s.)
const [build] = await Promise.all([
  run('pnpm', ['build:emit']),
  tap(queue[0] ?? 'cli', ['build'], { echo: false }),
  // The test processes' TypeBox bundle (scripts/tap/bundled-packages.mjs), made once here.
  run(process.execPath, ['scripts/tap/bundled-packages.mjs'], { echo: false }),
])
if (build.code !== 0) {
  process.stdout.write('\npnpm build:emit failed: no suite was run\n')
  process.exit(1)
}
await Promise.all([lane(), lane()])
count(suitesOutput)
// Measures the server's latency: beside another test file, the other file's CPU is what it would measure.
const stall = await tap('http', ['--jobs=1', '--disable-coverage', 'test/alone/stall.e2e.ts'])
count(stall.output)
failed ||= stall.code !== 0
process.stdout.write(`\nWall time per package (two at once): ${wallTimes(suitesOutput)}\n`)
process.stdout.write(`\nTests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skip} skipped\n`)
process.exitCode = failed ? 1 : 0
