import { chmod, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { runWaybill, serve } from './waybill-process.js'

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-data-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Every path under `dir` with its permission bits. */
async function modes(dir: string): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [[dir, (await stat(dir)).mode & 0o777]]
  for (const name of await readdir(dir, { recursive: true })) out.push([name, (await stat(join(dir, name))).mode & 0o777])
  return out
}

t.test('the data dir is for the service user only: created so, and tightened at start when it is not', async (t) => {
  const dir = await dataDir(t)
  const first = await serve({ WAYBILL_DATA_DIR: dir })
  t.equal(await first.stop(), 0)
  const created = await modes(dir)
  t.ok(created.length > 5, 'the store, the read model, tls/ and the test key were made')
  for (const [path, mode] of created) t.ok(mode === 0o700 || mode === 0o600, `${path} is ${mode.toString(8)}`)

  await chmod(dir, 0o755)
  await chmod(join(dir, 'events.sqlite'), 0o644)
  const second = await serve({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => second.stop())
  t.match(second.output(), /tightened the modes of 2 path\(s\) in .* \(directories 0700, files 0600\)/, 'the start says so')
  t.equal((await stat(dir)).mode & 0o777, 0o700)
  t.equal((await stat(join(dir, 'events.sqlite'))).mode & 0o777, 0o600)
})

t.test('WAYBILL_SANDBOX=off: no test key is made, and test keys are refused', async (t) => {
  const dir = await dataDir(t)
  const server = await serve({ WAYBILL_DATA_DIR: dir, WAYBILL_SANDBOX: 'off' })
  t.teardown(() => server.stop())
  t.match(server.output(), /the sandbox is off/)
  await t.rejects(stat(join(dir, 'test-api-key')), 'no test key file')
  const created = await runWaybill(['keys', 'create', '--test', '--scopes', 'orders:read'], { WAYBILL_DATA_DIR: dir })
  t.equal(created.code, 0, created.stderr)
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const response = await request(`${server.httpsUrl}/ping`, { headers: { 'service-api-key': created.stdout.trim() }, dispatcher: agent })
  t.match(await response.body.json(), { code: 'invalid_api_key', detail: 'Test keys are not accepted by this server' })
})

t.test('the start says when replacement keys wait in replaced-keys/ for hand-over', async (t) => {
  const dir = await dataDir(t)
  const first = await serve({ WAYBILL_DATA_DIR: dir })
  t.notMatch(first.output(), /replacement key/)
  const key = (await readFile(join(dir, 'test-api-key'), 'utf8')).trim()
  await new Promise<void>((resolve, reject) => {
    const socket = connect(first.httpPort, '127.0.0.1', () => socket.write(`GET /ping HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${key}\r\n\r\n`))
    socket.on('data', () => undefined)
    socket.on('end', () => resolve())
    socket.on('error', reject)
  })
  t.equal(await first.stop(), 0)
  const second = await serve({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => second.stop())
  t.match(second.output(), /1 replacement key\(s\) wait in .*replaced-keys for hand-over/)
})
