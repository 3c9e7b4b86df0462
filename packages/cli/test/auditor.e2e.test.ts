import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { addBody, completeBody } from './https-client.js'
import { runWaybill } from '../src/testing.js'
import { serve } from './waybill-process.js'

// `waybill serve` as a process, as an operator starts it (the suite's one such smoke test beside
// the signal, crash and file-mode ones): its log lines, which the test reads, go to its stdout.
interface Answer { readonly status: number; readonly text: string; readonly json: Record<string, unknown> }

t.test('an auditor key reads every account through `waybill serve`, is logged doing it, and cannot write; other keys stay in their account', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-auditor-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  const create = async (...args: string[]) => {
    const result = await runWaybill(['keys', 'create', ...args], { env })
    t.equal(result.code, 0, result.stderr)
    return result.stdout.trim()
  }
  const acme = await create('--account', 'acme', '--scopes', 'orders:add,orders:complete,orders:read')
  const globex = await create('--account', 'globex', '--scopes', 'orders:add,orders:read')
  const auditor = await create('--account', '*', '--scopes', 'orders:audit', '--label', 'external audit')
  const auditorId = auditor.slice(8, 20)

  const served = await serve(env)
  let stopped = false
  t.teardown(async () => { if (!stopped) await served.stop() })
  const agent = new Agent({ connect: { ca: await readFile(join(dir, 'tls', 'cert.pem'), 'utf8') } })
  t.teardown(() => agent.close())
  const call = async (key: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await request(`${served.httpsUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST', dispatcher: agent,
      headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.body.text()
    let json: Record<string, unknown> = {}
    try { json = JSON.parse(text) as Record<string, unknown> } catch { /* image bytes */ }
    return { status: response.statusCode, text, json }
  }

  // Two accounts, one order_id in both.
  t.equal((await call(acme, '/v1/deliveries', addBody('A-1'))).status, 201)
  t.equal((await call(acme, '/v1/deliveries', completeBody('A-1'))).status, 202)
  t.equal((await call(globex, '/v1/deliveries', addBody('A-1'))).status, 201)
  t.equal((await call(globex, '/v1/deliveries', addBody('G-2'))).status, 201)
  let listed = await call(auditor, '/v1/orders')
  for (let attempt = 0; (listed.json['orders'] as unknown[] | undefined)?.length !== 3 && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    listed = await call(auditor, '/v1/orders')
  }
  t.equal(listed.status, 200)
  t.match(listed.json['orders'], [
    { account: 'acme', order_id: 'A-1', status: 'completed', position: /^\d+$/ },
    { account: 'globex', order_id: 'A-1', status: 'pending', position: /^\d+$/ },
    { account: 'globex', order_id: 'G-2', position: /^\d+$/ },
  ], 'every account, each order with its account and position')

  t.match((await call(auditor, '/v1/orders/A-1?account=acme')).json, { account: 'acme', status: 'completed', recipient: 'Ann' })
  t.match((await call(auditor, '/v1/orders/A-1?account=globex')).json, { account: 'globex', status: 'pending' })
  t.match((await call(auditor, '/v1/orders/A-1/events?account=acme')).json, { account: 'acme', events: [{ type: 'OrderAdded', position: /^\d+$/ }, { type: 'OrderCompleted' }] })
  t.match((await call(auditor, '/v1/orders/G-2/events?account=globex')).json, { account: 'globex', events: [{ type: 'OrderAdded' }] })
  const pod = await call(auditor, '/v1/orders/A-1/pod?account=acme')
  t.equal(pod.status, 200, 'and the images')
  t.match((await call(auditor, '/v1/orders/A-1')).json, { code: 'bad_request', detail: /names the account/ })

  const before = (await call(auditor, '/v1/orders/A-1/events?account=acme')).json['events'] as unknown[]
  const write = await call(auditor, '/v1/deliveries', addBody('AUDIT-1'))
  t.equal(write.status, 403)
  t.match(write.json, { code: 'api_key_forbidden', detail: /lacks the orders:add scope/ })
  t.equal((await call(auditor, '/v1/deliveries', completeBody('A-1'))).json['code'], 'api_key_forbidden')
  t.equal(((await call(auditor, '/v1/orders/A-1/events?account=acme')).json['events'] as unknown[]).length, before.length, 'nothing was written')

  // An ordinary read key: its own account only, and no global positions.
  const own = await call(acme, '/v1/orders')
  t.same((own.json['orders'] as Array<Record<string, unknown>>).map((o) => o['order_id']), ['A-1'])
  t.notMatch(own.text, /"position"|"account"/)
  t.match((await call(acme, '/v1/orders/A-1?account=globex')).json, { status: 'completed' }, 'its own A-1, whatever account it names')
  t.equal((await call(acme, '/v1/orders/G-2?account=globex')).status, 404)
  t.equal((await call(acme, '/v1/orders/G-2/events?account=globex')).status, 404)
  t.notMatch((await call(acme, '/v1/orders/A-1/events')).text, /"position"/)
  t.equal((await call(globex, '/v1/orders/A-1/pod?account=acme')).status, 404)

  stopped = true
  t.equal(await served.stop(), 0)
  const audit = served.output().split('\n').filter((line) => line.includes('"auditor read"')).map((line) => JSON.parse(line) as { audit: Record<string, unknown> })
  t.ok(audit.length >= 8, `every auditor read logged although LOG_LEVEL=warn (${audit.length} lines)`)
  t.ok(audit.every((line) => line.audit['key_id'] === auditorId), 'each with the auditor key\'s id')
  t.ok(audit.some((line) => line.audit['route'] === '/v1/orders/:order_id/pod' && line.audit['account'] === 'acme' && line.audit['order_id'] === 'A-1'))
  t.notMatch(served.output(), new RegExp(auditor.slice(20)), 'never the secret')

  const keys = JSON.parse((await runWaybill(['keys', 'list', '--json'], { env })).stdout) as Array<Record<string, unknown>>
  t.match(keys.find((row) => row['key_id'] === auditorId), { account: '*', scopes: ['orders:audit'], label: 'external audit', last_used_at: String },
    'its last use, written when the server stopped')
})
