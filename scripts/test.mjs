#!/usr/bin/env node
// Runs every package's node-tap suite, one package at a time (the e2e suites start servers and
// child processes; two cores do not take two packages at once), streams their output, and ends
// with one plain summary line over all packages: "Tests: N passed, N failed, N skipped".
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const root = new URL('..', import.meta.url).pathname
const order = ['domain', 'merkle', 'event-store', 'keys', 'ingress', 'projector', 'cli', 'console', 'bench']
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
// Tests that measure the server's latency run on their own, after their package's suite: beside
// another test file on a 2-core machine, the other file's CPU would be what they measure. The
// stall probe judges the server's own event loop (monitorEventLoopDelay in the server's process),
// which the machine's other work hardly moves, and /healthz seen from outside only loosely.
const ALONE = { ingress: ['test/alone/stall.e2e.ts'] }
const seconds = {}

for (const name of packages) {
  process.stdout.write(`\n=== @waybill/${name}\n`)
  const started = performance.now()
  const runs = [[...process.argv.slice(2)], ...(ALONE[name] ?? []).map((file) => ['--jobs=1', file])]
  for (const args of runs) {
    const counts = await runTap(join(root, 'packages', name), args)
    if ((counts === null || counts.exitCode !== 0) && !failedPackages.includes(name)) failedPackages.push(name)
    if (counts !== null) for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0
  }
  seconds[name] = (performance.now() - started) / 1000
}
process.stdout.write(`\nWall time per package: ${packages.map((name) => `${name} ${seconds[name].toFixed(1)} s`).join(', ')}\n`)
if (failedPackages.length > 0) process.stdout.write(`\nFailed packages: ${failedPackages.join(', ')}\n`)
process.stdout.write(`\nTests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skip} skipped\n`)
process.exitCode = failedPackages.length > 0 ? 1 : 0

function runTap(cwd, args) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tap', ...args], { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
    let tail = ''
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      tail = (tail + chunk.toString()).slice(-4096)
    })
    child.on('close', (exitCode) => {
      // tap's closing summary: "# { total: 12, pass: 11, fail: 1, skip: 2 }"
      const match = [...tail.matchAll(/^# \{ total: \d+(?<rest>[^}]*)\}$/gm)].pop()
      const counts = { exitCode }
      for (const [, key, value] of match?.groups?.rest.matchAll(/(\w+): (\d+)/g) ?? []) counts[key] = Number(value)
      resolve(match === undefined && exitCode !== 0 ? { exitCode, fail: 1 } : counts)
    })
  })
}
