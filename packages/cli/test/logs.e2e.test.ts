import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addBody, clientFor } from './https-client.js'
import { MAIN, serve } from './waybill-process.js'

// What a log collector reads: the real processes' stdout and stderr, merged, as `docker logs`
// shows them. The process is the point here (its streams, its signal handling), so these run the
// built `waybill`.

type Line = Record<string, unknown>

/** Every line of `output` as JSON; a line that is not JSON fails the test, naming it. */
function jsonLines(t: { fail(message: string): void }, output: string): Line[] {
  return output.trim().split('\n').flatMap((text) => {
    try {
      return [JSON.parse(text) as Line]
    } catch {
      t.fail(`not a JSON line: ${text}`)
      return []
    }
  })
}

/** pino's line: what one parser of both processes' logs relies on. */
const PINO_LINE = { level: Number, time: Number, pid: Number, hostname: String, msg: String }

t.test('waybill serve: one JSON line per request, the plain listener\'s too; probes not at info; its start and stop lines in the same format', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-logs-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dir = join(root, 'data')
  const server = await serve({ WAYBILL_DATA_DIR: dir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), LOG_LEVEL: 'info' })
  t.teardown(() => server.stop())
  const client = await clientFor(server.httpsUrl, dir)
  t.equal((await client.post(addBody('L-1'))).status, 201)
  t.equal((await client.get('/v1/orders/nowhere')).status, 404)
  for (let i = 0; i < 5; i += 1) {
    t.equal((await client.get('/healthz', null)).status, 200)
    t.equal((await client.get('/readyz', null)).status, 200)
  }
  await client.close()
  // Last: the sandbox key, sent in clear, is revoked.
  const plain = await fetch(`http://127.0.0.1:${server.httpPort}/ping?probe=1`, { headers: { 'service-api-key': client.key } })
  t.equal(plain.status, 403)
  t.equal(await server.stop(), 0)

  const lines = jsonLines(t, server.output())
  t.ok(lines.length >= 10, `${lines.length} lines, every one JSON`)
  for (const line of lines) t.match(line, PINO_LINE, `pino's shape: ${String(line['msg'])}`)
  const requests = lines.filter((line) => line['msg'] === 'request')
  t.match(requests, [
    { level: 30, method: 'POST', route: '/v1/deliveries', status: 201, duration_ms: Number, reqId: String },
    { level: 30, method: 'GET', route: '/v1/orders/:order_id', status: 404, code: 'not_found' },
    { level: 30, method: 'GET', url: '/ping?probe=1', route: null, listener: 'plain', status: 403, code: 'insecure_connection', keys_seen: 1, keys_revoked: 1, reqId: String, client: '127.0.0.1' },
  ], 'one line for each request answered (the probes are at debug)')
  t.equal(requests.length, 3, 'and no other')
  t.notOk(server.output().includes(client.key), 'the key sent in clear is not in the log')
  t.ok(lines.some((line) => line['level'] === 40 && /revoked and replaced/.test(String(line['msg']))), 'its revocation is a warning of its own')
  const sizes = requests.map((line) => JSON.stringify(line).length + 1)
  t.ok(sizes.every((size) => size < 400), `a request's line is ${sizes.join(', ')} bytes`)
  const stop = lines.findIndex((line) => line['msg'] === 'waybill: SIGTERM received, finishing in-flight requests')
  t.ok(stop > lines.indexOf(requests.at(-1) ?? {}), 'the stop line too, after the requests')
})

t.test('waybill projector logs in the format of serve: the same fields, its stop line too', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-logs-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dir = join(root, 'data')
  const child = spawn(process.execPath, [MAIN, 'projector', '--status-every', '0.2'], {
    env: { PATH: process.env['PATH'] ?? '', WAYBILL_DATA_DIR: dir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'info' },
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer): void => {
      output += chunk.toString()
      // Started, and a status line of each projection said.
      if (/health and metrics on/.test(output) && /projector: audit \w+ checkpoint/.test(output)) resolve()
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    void exited.then((code) => reject(new Error(`waybill projector exited with ${String(code)}:\n${output}`)))
  })
  child.kill('SIGTERM')
  t.equal(await exited, 0)
  const lines = jsonLines(t, output)
  for (const line of lines) t.match(line, PINO_LINE, `pino's shape: ${String(line['msg'])}`)
  t.ok(lines.some((line) => line['projection'] === 'orders' && typeof line['lag'] === 'number'), 'its status lines carry their figures as fields')
  t.ok(lines.some((line) => line['level'] === 30 && line['msg'] === 'waybill: SIGTERM received, finishing in-flight requests'), 'its stop line')
})
