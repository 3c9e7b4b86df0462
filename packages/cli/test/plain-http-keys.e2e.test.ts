import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { runWaybill, startServe, type Serving } from '../src/testing.js'

/** Writes raw bytes to a port and reads whatever comes back until the server closes. */
function raw(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let answer = ''
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1') })
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    socket.setTimeout(15_000, () => { socket.destroy(); reject(new Error(`no answer from port ${port}`)) })
  })
}

const portOf = (url: string): number => Number(new URL(url).port)
const head = (lines: readonly string[]): string => `${lines.join('\r\n')}\r\n\r\n`

/** Each way a courier's system (or a confused one) can put its key on the wire in plain HTTP. */
const BYPASSES: ReadonlyArray<readonly [string, 'plain' | 'https', (key: string) => string | Buffer]> = [
  ['Service-Api-Key header', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', `Service-Api-Key: ${key}`])],
  ['HTTP Basic credentials (curl -u KEY:)', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', `Authorization: Basic ${Buffer.from(`${key}:`).toString('base64')}`])],
  ['the query string (?api_key=)', 'plain', (key) => head([`GET /v1/orders?api_key=${key} HTTP/1.1`, 'Host: x'])],
  ['another header (X-Api-Key)', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', `X-Api-Key: ${key}`])],
  ['a second Authorization header', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', 'Authorization: Bearer nothing', `Authorization: Bearer ${key}`])],
  ['percent-encoded in the query', 'plain', (key) => head([`GET /ping?k=${key.replaceAll('_', '%5F')} HTTP/1.1`, 'Host: x'])],
  ['a head too large for the HTTP parser (431)', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', `X-Pad: ${'p'.repeat(20_000)}`, `Service-Api-Key: ${key}`])],
  ['a malformed header line', 'plain', (key) => head(['GET /ping HTTP/1.1', 'Host: x', 'this line has no colon', `Service-Api-Key: ${key}`])],
  ['Content-Length with Transfer-Encoding', 'plain', (key) => `${head(['POST /v1/deliveries HTTP/1.1', 'Host: x', 'Content-Length: 5', 'Transfer-Encoding: chunked', `Service-Api-Key: ${key}`])}0\r\n\r\n`],
  ['CONNECT', 'plain', (key) => head(['CONNECT example.com:443 HTTP/1.1', 'Host: example.com:443', `Proxy-Authorization: Basic ${Buffer.from(`${key}:`).toString('base64')}`])],
  ['a JSON body', 'plain', (key) => { const body = JSON.stringify({ api_key: key }); return `${head(['POST /v1/deliveries HTTP/1.1', 'Host: x', 'Content-Type: application/json', `Content-Length: ${body.length}`])}${body}` }],
  ['plain HTTP to the HTTPS port', 'https', (key) => head(['GET /ping HTTP/1.1', 'Host: x', `Service-Api-Key: ${key}`])],
]

t.test('a key sent over plain HTTP in any way is refused over HTTPS from then on, also after a restart', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-plain-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  let server: Serving = await startServe(env)
  t.teardown(() => server.stop())
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const ping = async (key: string): Promise<{ status: number; json: { code?: string; detail?: string } }> => {
    const response = await request(`${server.httpsUrl}/ping`, { headers: { 'service-api-key': key }, dispatcher: agent })
    return { status: response.statusCode, json: await response.body.json() as { code?: string; detail?: string } }
  }

  const exposed: Array<[string, string]> = []
  for (const [how, port, bytes] of BYPASSES) {
    const created = await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:read'], { env })
    const key = created.stdout.trim()
    t.equal((await ping(key)).status, 200, `${how}: the key works over HTTPS first`)
    const answer = await raw(port === 'plain' ? server.httpPort : portOf(server.httpsUrl), bytes(key))
    t.match(answer, /^HTTP\/1\.1 403 /, `${how}: refused`)
    t.match(answer, /"code":"insecure_connection"/, how)
    t.match(answer, /is now revoked and replaced/, `${how}: the answer says the key is revoked`)
    t.notMatch(answer, /wb_live_/, `${how}: no key travels back over plain HTTP`)
    const after = await ping(key)
    t.equal(after.json.code, 'invalid_api_key', `${how}: refused over HTTPS right after`)
    t.match(after.json.detail, /revoked at \d{4}-\d\d-\d\dT.* because it was sent over plain HTTP/, `${how}: the refusal says why and when`)
    exposed.push([how, key])
  }

  const none = await raw(server.httpPort, head(['GET /ping HTTP/1.1', 'Host: x']))
  t.match(none, /No API key was seen/, 'plain HTTP without a key does not claim a revocation')
  t.notMatch(none, /revoked/)

  t.equal(await server.stop(), 0)
  server = await startServe(env)
  for (const [how, key] of exposed) t.equal((await ping(key)).json.code, 'invalid_api_key', `${how}: still refused after a restart`)
})
