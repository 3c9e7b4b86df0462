import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { connect, createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { runWaybill, startServe } from '../src/testing.js'

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function get(url: string, key: string | null, agent: Agent) {
  const response = await request(url, { headers: key === null ? {} : { 'service-api-key': key }, dispatcher: agent })
  const text = await response.body.text()
  return { status: response.statusCode, json: JSON.parse(text) as Record<string, unknown> }
}

t.test('serve on a fresh data dir: test key, self-signed cert, ping; a plain-HTTP key stays revoked after a restart', async (t) => {
  const dir = await dataDir(t)
  const first = await startServe({ WAYBILL_DATA_DIR: dir })
  t.match(first.output(), /created the sandbox test key/)
  t.match(first.output(), new RegExp(join(dir, 'test-api-key')))
  const key = (await readFile(join(dir, 'test-api-key'), 'utf8')).trim()
  t.equal((await stat(join(dir, 'test-api-key'))).mode & 0o777, 0o600)
  t.equal((await stat(join(dir, 'tls', 'key.pem'))).mode & 0o777, 0o600)
  // Its output is no terminal: the start's lines are log lines, in pino's shape, and the key made
  // is only in its file (log aggregation keeps what a log says).
  const lines = first.output().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  t.ok(lines.length >= 7 && lines.every((line) => typeof line['level'] === 'number' && typeof line['time'] === 'number' && typeof line['msg'] === 'string'),
    `${lines.length} JSON log lines`)
  t.notMatch(first.output(), key, 'the sandbox key is not in the start\'s lines')
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  const plainAgent = new Agent()
  t.teardown(async () => { await agent.close(); await plainAgent.close() })
  t.match(await get(`${first.httpsUrl}/ping`, key, agent), { status: 200, json: { account: 'sandbox' } })

  // Create a live key with the CLI while the server runs (same store, another process).
  const created = await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:add,orders:read'], { env: { WAYBILL_DATA_DIR: dir } })
  t.equal(created.code, 0, created.stderr)
  const live = created.stdout.trim()
  t.match(live, /^wb_live_/)
  t.equal((await get(`${first.httpsUrl}/ping`, live, agent)).status, 200)

  t.match(await get(`http://127.0.0.1:${first.httpPort}/ping`, live, plainAgent), { status: 403, json: { code: 'insecure_connection' } })
  t.equal(await first.stop(), 0, 'a stop closes gracefully with exit code 0')

  const second = await startServe({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => second.stop())
  t.notMatch(second.output(), /created the sandbox test key/, 'the test key is made only once')
  t.match(await get(`${second.httpsUrl}/ping`, live, agent), { status: 401, json: { code: 'invalid_api_key' } })
  t.equal((await get(`${second.httpsUrl}/ping`, key, agent)).status, 200, 'the test key still works')

  const listed = await runWaybill(['keys', 'list', '--json'], { env: { WAYBILL_DATA_DIR: dir } })
  t.equal(listed.code, 0, listed.stderr)
  const rows = JSON.parse(listed.stdout) as Array<{ key_id: string; state: string; replaces: string | null; secret_file: string | null; account: string }>
  const replacement = rows.find((row) => row.replaces !== null)
  t.match(replacement, { account: 'acme', state: 'active', secret_file: String })
  const replacementKey = (await readFile(replacement?.secret_file as string, 'utf8')).trim()
  t.match(await get(`${second.httpsUrl}/ping`, replacementKey, agent), { status: 200, json: { account: 'acme' } })
  t.equal(rows.filter((row) => row.state === 'rotated').length, 1)
})

t.test('a bad configuration value stops the start and names the variable', async (t) => {
  const dir = await dataDir(t)
  for (const [name, value] of [['WAYBILL_HTTPS_PORT', 'abc'], ['WAYBILL_HTTP_PORT', '70000'], ['WAYBILL_STORE', 'mysql'], ['LOG_LEVEL', 'loud'], ['WAYBILL_TRUST_PROXY', 'not-an-ip'], ['WAYBILL_RATE_LIMIT', '0']]) {
    const result = await runWaybill(['serve'], { env: { WAYBILL_DATA_DIR: dir, [name as string]: value as string } })
    t.not(result.code, 0, `${name}=${value} fails`)
    t.match(result.stderr, new RegExp(name as string), `the message names ${name}`)
  }
})

t.test('values that only fail when tried (files, ports, host, data dir) also stop the start naming the variable', async (t) => {
  const dir = await dataDir(t)
  await writeFile(join(dir, 'garbage.pem'), 'not a certificate\n')
  await writeFile(join(dir, 'a-file'), '')
  const base = { WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0' }
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => busy.close())
  const busyPort = String((busy.address() as AddressInfo).port)
  for (const [env, pattern] of [
    [{ WAYBILL_TLS_CERT: join(dir, 'missing.pem'), WAYBILL_TLS_KEY: join(dir, 'missing.pem') }, /WAYBILL_TLS_CERT: cannot read .*missing\.pem: ENOENT/],
    [{ WAYBILL_TLS_CERT: join(dir, 'garbage.pem'), WAYBILL_TLS_KEY: join(dir, 'garbage.pem') }, /WAYBILL_TLS_CERT: .*not a usable PEM certificate/],
    [{ WAYBILL_HTTPS_PORT: '39999', WAYBILL_HTTP_PORT: '39999' }, /WAYBILL_HTTP_PORT: must differ from WAYBILL_HTTPS_PORT/],
    [{ WAYBILL_HTTPS_PORT: busyPort }, new RegExp(`WAYBILL_HTTPS_PORT: port ${busyPort} on 127.0.0.1 is already in use`)],
    [{ WAYBILL_HTTP_PORT: busyPort }, new RegExp(`WAYBILL_HTTP_PORT: port ${busyPort} on 127.0.0.1 is already in use`)],
    [{ WAYBILL_HOST: 'no-such-host.invalid' }, /WAYBILL_HOST: cannot listen on "no-such-host.invalid"/],
    [{ WAYBILL_DATA_DIR: join(dir, 'a-file') }, /WAYBILL_DATA_DIR: .*a-file cannot be used as the data directory/],
  ] as const) {
    const result = await runWaybill(['serve'], { env: { WAYBILL_DATA_DIR: join(dir, 'data'), ...base, ...env } })
    t.equal(result.code, 1, JSON.stringify(env))
    t.match(result.stderr, pattern, JSON.stringify(env))
  }
})

t.test('the whole path through `waybill serve`: a 128-character order_id is accepted, projected and read back', async (t) => {
  const dir = await dataDir(t)
  const served = await startServe({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => served.stop())
  const key = (await readFile(join(dir, 'test-api-key'), 'utf8')).trim()
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  // Dashes, a slash-free but percent-encoded character and the full 128 characters.
  const orderId = `ord-é-${'x'.repeat(128 - 6)}`
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- the limit counts code points (docs/contract.md#conventions), as a spread does
  t.equal([...orderId].length, 128)
  const post = await request(`${served.httpsUrl}/v1/deliveries`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'service-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      event: 'ORDER_ADD',
      event_date: '2026-11-22T10:00:00Z',
      event_payload: { order_id: orderId, customer: 'c-1', location: 'l-1', status: 'pending', address: '1 Main St', delivery_date: '2026-11-23T10:00:00Z' },
    }),
  })
  t.equal(post.statusCode, 201, await post.body.text())

  const path = `${served.httpsUrl}/v1/orders/${encodeURIComponent(orderId)}`
  let order = await get(path, key, agent)
  for (let attempt = 0; order.status === 404 && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    order = await get(path, key, agent)
  }
  t.match(order, { status: 200, json: { order_id: orderId, status: 'pending', customer: 'c-1' } }, 'the projector running inside serve caught up')
  const history = await get(`${path}/events`, key, agent)
  t.equal(history.status, 200)
  t.match(history.json, { events: [{ type: 'OrderAdded', revision: 0 }] })
  // Route-schema refusals are problem bodies naming the field, in the validator's words.
  t.match(await get(`${served.httpsUrl}/v1/orders?status=bogus`, key, agent), {
    status: 400, json: { code: 'bad_request', detail: 'status: must be one of pending, in_progress, completed, canceled' },
  })
  t.match(await get(`${served.httpsUrl}/v1/orders?limit=0`, key, agent), { status: 400, json: { code: 'bad_request', detail: 'limit: must be at least 1' } })
})

t.test('WAYBILL_SANDBOX=off: no test key is made, and test keys are refused', async (t) => {
  const dir = await dataDir(t)
  const server = await startServe({ WAYBILL_DATA_DIR: dir, WAYBILL_SANDBOX: 'off' })
  t.teardown(() => server.stop())
  t.match(server.output(), /the sandbox is off/)
  await t.rejects(stat(join(dir, 'test-api-key')), 'no test key file')
  const created = await runWaybill(['keys', 'create', '--test', '--scopes', 'orders:read'], { env: { WAYBILL_DATA_DIR: dir } })
  t.equal(created.code, 0, created.stderr)
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const response = await request(`${server.httpsUrl}/ping`, { headers: { 'service-api-key': created.stdout.trim() }, dispatcher: agent })
  t.match(await response.body.json(), { code: 'invalid_api_key', detail: 'Test keys are not accepted by this server' })
})

t.test('the start says when replacement keys wait in replaced-keys/ for hand-over', async (t) => {
  const dir = await dataDir(t)
  const first = await startServe({ WAYBILL_DATA_DIR: dir })
  t.notMatch(first.output(), /replacement key/)
  const key = (await readFile(join(dir, 'test-api-key'), 'utf8')).trim()
  await new Promise<void>((resolve, reject) => {
    const socket = connect(first.httpPort, '127.0.0.1', () => socket.write(`GET /ping HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${key}\r\n\r\n`))
    socket.on('data', () => undefined)
    socket.on('end', () => resolve())
    socket.on('error', reject)
  })
  t.equal(await first.stop(), 0)
  const second = await startServe({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => second.stop())
  t.match(second.output(), /1 replacement key\(s\) wait in .*replaced-keys for hand-over/)
})
