import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { clientFor } from './https-client.js'
import { MAIN } from './waybill-process.js'

/*
 * The service starts and stops as an operator starts it: `pnpm start` hands SIGTERM to the server
 * (no orphan left listening), a server whose log reader has gone away still exits on SIGTERM, and
 * a command whose reader goes away stops quietly. Real child processes, real signals, real pipes.
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-start-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const env = (dir: string) => ({
  ...process.env, WAYBILL_DATA_DIR: dir, WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0', LOG_LEVEL: 'info',
})

/** Resolves with the HTTPS address once the child prints where it listens (its stdout stays open and read). */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const url = /listening on (https:\/\/\S+) /.exec(text)?.[1]
      if (url !== undefined && /metrics at/.test(text)) resolve(url)
    })
    child.on('exit', () => reject(new Error(`exited before listening:\n${text}`)))
  })
}

/** Whether any process is left in the process group `pgid`. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

t.test('SIGTERM to the process `pnpm start` started stops the server gracefully and leaves no process behind', async (t) => {
  const dir = await dataDir(t)
  // Its own process group, so that what it leaves behind can be seen (and cleaned up) as a group.
  const pnpm = spawn('pnpm', ['start'], { cwd: ROOT, env: env(dir), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const pgid = pnpm.pid ?? 0
  t.teardown(() => { if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL') })
  let stderr = ''
  let stdout = ''
  pnpm.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  pnpm.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  const url = await listening(pnpm)
  const client = await clientFor(url, dir)
  t.equal((await client.get('/ping')).status, 200, 'the server answers')
  await client.close()

  const exited = once(pnpm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  process.kill(pgid, 'SIGTERM')
  const [code] = await exited
  t.equal(code, 0, 'pnpm exits with the server\'s own code')
  t.notMatch(`${stdout}${stderr}`, /ELIFECYCLE/, 'pnpm reports no failure')
  t.match(stderr, /SIGTERM received, finishing in-flight requests/, 'the server itself got SIGTERM and closed gracefully')
  // pnpm waits for its child; poll only as a bound, the assertion is on what is left.
  for (let i = 0; i < 50 && groupAlive(pgid); i++) await sleep(100)
  t.notOk(groupAlive(pgid), 'no process of the group is left (no orphaned server)')
})

t.test('a server whose stdout reader has gone away still exits cleanly on SIGTERM', async (t) => {
  const dir = await dataDir(t)
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const url = await listening(child)
  // The log reader goes away: the pipe's read end is closed, so every write to it fails with EPIPE.
  child.stdout.destroy()
  const client = await clientFor(url, dir)
  for (let i = 0; i < 20; i++) t.equal((await client.get('/healthz')).status, 200, 'requests (each logged, into EPIPE) are still served')
  await client.close()

  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  child.kill('SIGTERM')
  const [code, signal] = await exited
  t.same({ code, signal }, { code: 0, signal: null }, 'it exits by itself, with 0: closed gracefully, not killed after the grace period')
  t.match(stderr, /SIGTERM received/)
  // Not a terminal: in the log's format, on stderr, which still has its reader.
  t.match(stderr.trim().split('\n').map((line) => JSON.parse(line) as unknown), [{ level: 30, time: Number, pid: child.pid, msg: 'waybill: SIGTERM received, finishing in-flight requests' }],
    'one JSON line in the log\'s format, and nothing else')
})

t.test('a command whose reader goes away (| head) stops quietly with exit 0', async (t) => {
  const dir = await dataDir(t)
  const child = spawn(process.execPath, [MAIN, 'projector', '--status-every', '1'], {
    env: { PATH: process.env['PATH'] ?? '', WAYBILL_DATA_DIR: dir, WAYBILL_PROJECTOR_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  // Like `head -1`: read one chunk, then close the pipe; the next status line meets EPIPE.
  child.stdout.once('data', () => child.stdout.destroy())
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)))
  clearTimeout(killer)
  t.equal(code, 0, stderr)
  t.notMatch(stderr, /EPIPE/)
})
