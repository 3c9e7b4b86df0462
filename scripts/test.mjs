#!/usr/bin/env node
// Runs every package's node-tap suite and ends with one plain summary line over all packages:
// "Tests: N passed, N failed, N skipped".
//
// Two lanes share the machine, two test files at a time each (four in all, as taprc.base.yaml's
// `jobs: 4` runs a package alone). Each lane takes the longest package still waiting (the cli
// suite first), so the two end close together; one package at a time left a core idle while
// each package's last file finished. Each package's output is printed whole when it ends, so the
// lanes never interleave. The smallest package runs first, alone, because that first run of tap
// builds tap's test class for the plugin list (taprc.base.yaml) and two runs must not build it
// at once. Tests that measure latency run last, alone on the machine.
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const root = new URL('..', import.meta.url).pathname
// Longest first (measured wall time of each suite), so that the lanes end close together.
const order = ['cli', 'event-store', 'http', 'projector', 'keys', 'console', 'domain', 'merkle', 'bench']
const packages = order.filter((name) => existsSync(join(root, 'packages', name, 'test')) &&
  readdirSync(join(root, 'packages', name, 'test'), { recursive: true }).some((file) => file.endsWith('.test.ts')))

// The console's browser test drives Debian's Chromium (packages/console/README.md). On a fresh
// Debian machine, as root, the README's test command installs it, as .ci/run does; elsewhere it
// says what is missing instead of letting the browser test fail on a launch error.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (packages.includes('console') && !existsSync(CHROMIUM)) {
  process.stdout.write(`${CHROMIUM} is missing: installing Debian's chromium (apt-get) for the console's browser test\n`)
  const installed = spawnSync('sh', ['-c', 'apt-get update && apt-get install -y chromium'], { stdio: 'inherit' })
  if (installed.status !== 0 || !existsSync(CHROMIUM)) {
    process.stderr.write(`could not install chromium: run \`apt-get install -y chromium\` as root, or set CHROMIUM_PATH\n`)
    process.exit(1)
  }
}

const totals = { pass: 0, fail: 0, skip: 0, todo: 0 }
const failedPackages = []
// Tests that measure the server's latency run on their own, after every suite: beside another
// test file on a 2-core machine, the other file's CPU would be what they measure. The
// stall probe judges the server's own event loop (monitorEventLoopDelay in the server's process),
// which the machine's other work hardly moves, and /healthz seen from outside only loosely.
const ALONE = { http: ['test/alone/stall.e2e.ts'] }
const seconds = {}

const LANE_JOBS = '--jobs=2'
const given = process.argv.slice(2).filter((arg) => arg !== '--checks')
const running = new Set()
/** Set once the suites are being stopped: no lane starts another package. */
let stopping = false

// `--checks` (what `pnpm test` passes): the type check and the lint run beside the suites, at a
// lower priority (nice), on the CPU the suites leave idle while their files wait on processes,
// sockets and timers; measured back to back, the whole command 255 s against 274 s first. A
// problem they find stops everything at once, as when they ran first. The stall probe waits
// for them: it runs alone.
const checks = process.argv.includes('--checks') ? runChecks() : null
// The tap runs have process groups of their own: a Ctrl-C (or a CI's SIGTERM) is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stopSuites().then(() => process.exit(130)))

async function runPackage(name, args, label = name) {
  const started = performance.now()
  const output = [`\n=== @waybill/${label}\n`]
  const counts = await runTap(join(root, 'packages', name), args, output)
  process.stdout.write(output.join(''))
  if ((counts === null || counts.exitCode !== 0) && !failedPackages.includes(name)) failedPackages.push(name)
  if (counts !== null) for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0
  seconds[label] = (performance.now() - started) / 1000
}

const waiting = [...packages]
const smallest = waiting.pop()
if (smallest !== undefined) await runPackage(smallest, given)
const lane = async () => {
  for (let name = waiting.shift(); name !== undefined && !stopping; name = waiting.shift()) await runPackage(name, [LANE_JOBS, ...given])
}
await Promise.all([lane(), lane()])
if (checks !== null) await checks
for (const [name, files] of Object.entries(ALONE).filter(([name]) => packages.includes(name))) {
  for (const file of files) await runPackage(name, ['--jobs=1', file], `${name} ${file} (alone)`)
}
process.stdout.write(`\nWall time per package (two lanes at once): ${Object.entries(seconds).map(([name, time]) => `${name} ${time.toFixed(1)} s`).join(', ')}\n`)
if (failedPackages.length > 0) process.stdout.write(`\nFailed packages: ${failedPackages.join(', ')}\n`)
process.stdout.write(`\nTests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skip} skipped\n`)
process.exitCode = failedPackages.length > 0 ? 1 : 0

function runTap(cwd, args, output) {
  return new Promise((resolve) => {
    if (stopping) {
      resolve(null)
      return
    }
    // The package's own tap, without npx in front (npx costs each run 0.3 s of CPU).
    // Its own process group, so that stopping it (see runChecks) reaches every process under it.
    const child = spawn(join(cwd, 'node_modules', '.bin', 'tap'), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    running.add(child)
    let tail = ''
    child.on('error', (error) => {
      output.push(`could not run tap: ${error.message}\n`)
      resolve({ exitCode: 1, fail: 1 })
    })
    child.stderr.on('data', (chunk) => output.push(chunk.toString()))
    child.stdout.on('data', (chunk) => {
      output.push(chunk.toString())
      tail = (tail + chunk.toString()).slice(-4096)
    })
    child.on('close', (exitCode) => {
      running.delete(child)
      // tap's closing summary: "# { total: 12, pass: 11, fail: 1, skip: 2 }"
      const match = [...tail.matchAll(/^# \{ total: \d+(?<rest>[^}]*)\}$/gm)].pop()
      const counts = { exitCode }
      for (const [, key, value] of match?.groups?.rest.matchAll(/(\w+): (\d+)/g) ?? []) counts[key] = Number(value)
      resolve(match === undefined && exitCode !== 0 ? { exitCode, fail: 1 } : counts)
    })
  })
}

/** `pnpm typecheck` then `pnpm lint`, niced; on a failure, prints why, stops every suite and exits 1. */
function runChecks() {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', 'nice -n 10 pnpm typecheck && nice -n 10 pnpm lint'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk.toString()))
    child.stderr.on('data', (chunk) => output.push(chunk.toString()))
    child.on('close', (code) => {
      seconds['typecheck and lint (beside the suites)'] = (performance.now() - started) / 1000
      if (code === 0) {
        process.stdout.write(`\n=== typecheck and lint: passed\n`)
        resolve()
        return
      }
      process.stdout.write(`\n=== typecheck and lint: FAILED, the suites are stopped\n${output.join('')}`)
      void stopSuites().then(() => process.exit(1))
    })
  })
}

/** Kills every tap run's process group (tap, its test processes, the servers they started). */
function stopSuites() {
  stopping = true
  return Promise.all([...running].map((tap) => new Promise((done) => {
    tap.once('close', done)
    try {
      process.kill(-tap.pid, 'SIGKILL')
    } catch {
      done()
    }
  })))
}
