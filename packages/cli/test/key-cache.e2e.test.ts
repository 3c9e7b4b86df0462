import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { runWaybill } from '../src/testing.js'
import { serve } from './waybill-process.js'

/** Sends one plain-HTTP request carrying `key` to `port` and reads the answer until the server closes. */
function plainPing(port: number, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET /ping HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${key}\r\n\r\n`))
    let answer = ''
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1') })
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

// The key cache's invariant (docs/design.md#key-cache): a key revoked, rotated or changed by any
// process is refused by every instance on every request that starts after the change was
// acknowledged. Two `waybill serve` processes share one data dir; the changes come from the CLI
// (a third process) and from one server's plain-HTTP listener. Each key is used on both servers
// first, so both hold it in their caches when it changes.
t.test('a key changed by another process is refused on the very next request, by every instance', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-key-cache-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  const first = await serve(env)
  t.teardown(() => first.stop())
  const second = await serve(env, ['--no-projector'])
  t.teardown(() => second.stop())
  const servers = [first, second]
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const get = async (url: string, path: string, key: string): Promise<{ status: number; code: string | undefined }> => {
    const response = await request(`${url}${path}`, { headers: { 'service-api-key': key }, dispatcher: agent })
    return { status: response.statusCode, code: (await response.body.json() as { code?: string }).code }
  }
  const keys = async (...args: string[]): Promise<string> => {
    const done = await runWaybill(['keys', ...args], { env })
    t.equal(done.code, 0, `waybill keys ${args.join(' ')}: ${done.stderr}`)
    return done.stdout.trim()
  }
  const idOf = (key: string): string => key.slice('wb_live_'.length, 'wb_live_'.length + 12)
  const warm = async (key: string, what: string): Promise<void> => {
    for (const [i, server] of servers.entries()) {
      for (let n = 0; n < 3; n += 1) t.equal((await get(server.httpsUrl, '/ping', key)).status, 200, `${what}: accepted by server ${i + 1} first`)
    }
  }
  const refused = async (key: string, what: string): Promise<void> => {
    for (const [i, server] of servers.entries()) {
      t.same(await get(server.httpsUrl, '/ping', key), { status: 401, code: 'invalid_api_key' }, `${what}: refused by server ${i + 1} on the next request`)
    }
  }

  const revoked = await keys('create', '--account', 'acme', '--scopes', 'orders:read')
  await warm(revoked, 'revoke')
  await keys('revoke', idOf(revoked))
  await refused(revoked, 'revoked by the CLI')

  const rotated = await keys('create', '--account', 'acme', '--scopes', 'orders:read')
  await warm(rotated, 'rotate')
  const replacement = await keys('rotate', idOf(rotated))
  await refused(rotated, 'rotated by the CLI')
  for (const [i, server] of servers.entries()) t.equal((await get(server.httpsUrl, '/ping', replacement)).status, 200, `the replacement works on server ${i + 1}`)

  const narrowed = await keys('create', '--account', 'acme', '--scopes', 'orders:read,orders:add')
  for (const server of servers) t.equal((await get(server.httpsUrl, '/v1/orders', narrowed)).status, 200, 'the key reads orders first')
  await keys('update', idOf(narrowed), '--scopes', 'orders:add')
  for (const [i, server] of servers.entries()) {
    t.same(await get(server.httpsUrl, '/v1/orders', narrowed), { status: 403, code: 'api_key_forbidden' }, `a scope taken away by the CLI: server ${i + 1} refuses at once`)
  }

  const exposed = await keys('create', '--account', 'acme', '--scopes', 'orders:read')
  await warm(exposed, 'plain HTTP')
  t.match(await plainPing(first.httpPort, exposed), /^HTTP\/1\.1 403 /, 'sent over plain HTTP to server 1')
  await refused(exposed, 'revoked by server 1\'s plain-HTTP listener')
})
