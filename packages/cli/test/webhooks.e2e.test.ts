import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runWaybill, startServe } from '../src/testing.js'
import { addBody, clientFor, completeBody } from './https-client.js'
import { eventually, startReceiver } from './webhook-receiver.js'

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-webhooks-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

t.test('bad input is refused with exit 2, naming it; nothing is created', async (t) => {
  const env = { WAYBILL_DATA_DIR: join(await dataDir(t), 'data') }
  const refused: Array<[string[], RegExp]> = [
    [['add', 'hooks.example.com/in'], /"hooks\.example\.com\/in" is not a URL/],
    [['add', 'http://hooks.example.com/in'], /"http:\/\/hooks\.example\.com\/in" is not HTTPS/],
    [['add', 'https://hooks.example.com/in', '--events', 'ORDER_ADD,ORDER_LOST'], /--events: unknown event "ORDER_LOST"; events: ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED/],
    [['add', 'https://hooks.example.com/in', '--account', 'Big-Co'], /--account: "Big-Co" must be lower-case letters/],
    [['add'], /the endpoint URL is required/],
    [['replay', '--since', 'yesterday'], /--since: "yesterday" is not a UTC time/],
    [['replay'], /--since is required/],
    [['replay', '--since', '2026-03-02', '--until', '2026-03-01'], /--until must be after --since/],
    [['deliveries', '--limit', '0'], /--limit: expected a whole number from 1 to 10000/],
    [['rotate-secret', 'ep_0', '--grace', '90d'], /--grace: at most 30d/],
    [['launch'], /unknown subcommand "launch"/],
    [[], /a subcommand is required/],
  ]
  for (const [args, message] of refused) {
    const run = await runWaybill(['webhooks', ...args], { env })
    t.equal(run.code, 2, args.join(' '))
    t.match(run.stderr, message)
    t.match(run.stderr, /\(see waybill webhooks --help\)\n$/)
  }
  const missing = await runWaybill(['webhooks', 'disable', 'ep_0123456789abcdef'], { env })
  t.match(missing, { code: 1, stderr: 'waybill webhooks: no webhook endpoint ep_0123456789abcdef (see waybill webhooks list)\n' })
  t.match(await runWaybill(['webhooks', 'list'], { env }), { code: 0, stdout: 'no webhook endpoints\n' })
  t.match(await runWaybill(['webhooks', 'deliveries'], { env }), { code: 0, stdout: 'no delivery attempts\n' })
  t.match(await runWaybill(['webhooks', 'replay', '--since', '2026-03-01'], { env }), { code: 0, stdout: 'no webhook endpoints\n' })
  t.match(await runWaybill(['webhooks', '--help'], { env }), { code: 0, stdout: /^waybill webhooks: add, list, disable/ })
})

t.test('waybill webhooks against a running serve: failed attempts in the log, replay re-sends the same ids, 410 disables, enable resumes', async (t) => {
  const dir = await dataDir(t)
  const env = { WAYBILL_DATA_DIR: dir, WAYBILL_WEBHOOK_RETRIES: '50ms,50ms,50ms,50ms,50ms,50ms', WAYBILL_WEBHOOK_TIMEOUT_MS: '2000' }
  let gone = false
  const receiver = await startReceiver((n) => gone ? 410 : n < 3 ? 500 : 204)
  t.teardown(() => receiver.close())
  const server = await startServe(env)
  t.teardown(() => server.stop())
  const added = await runWaybill(['webhooks', 'add', receiver.url, '--events', 'ORDER_ADD,ORDER_COMPLETE'], { env })
  t.equal(added.code, 0, added.stderr)
  const [id = '', secret = ''] = added.stdout.trim().split('\n')
  t.match(id, /^ep_[0-9a-f]{16}$/)
  t.match(secret, /^whsec_/)
  t.match(added.stderr, new RegExp(`added ${id} for ${receiver.url} \\(every account, ORDER_ADD,ORDER_COMPLETE\\); the secret above is shown this once`))
  receiver.secret = secret

  const client = await clientFor(server.httpsUrl, dir)
  t.teardown(() => client.close())
  const before = new Date().toISOString()
  for (const order of ['W-1', 'W-2']) {
    t.equal((await client.post(addBody(order))).status, 201)
    t.equal((await client.post(completeBody(order))).status, 202)
  }
  const delivered = () => new Set(receiver.requests.filter((r) => r.status === 204).map((r) => r.message?.data.event_id)).size === 4
  await eventually('four events delivered', delivered)
  t.equal(receiver.requests.filter((r) => r.message === null).length, 0, 'every request verifies with standardwebhooks')

  const failed = await runWaybill(['webhooks', 'deliveries', '--failed'], { env })
  t.equal(failed.stdout.trim().split('\n').length, 4, 'a header and the three failed attempts')
  t.match(failed.stdout, new RegExp(`^AT +ENDPOINT +WEBHOOK ID +EVENT +ORDER +OUTCOME +STATUS +MS +ERROR\\n\\S+ \\S+ +${id} +msg_\\S+ +Order\\w+@\\d +sandbox/W-\\d +failed +500 +\\d+ +HTTP 500\\n`))
  await eventually('every attempt recorded', async () => {
    const log = JSON.parse((await runWaybill(['webhooks', 'deliveries', id, '--json'], { env })).stdout) as unknown[]
    return log.length === receiver.requests.length
  })
  const list = await runWaybill(['webhooks', 'list'], { env })
  t.match(list.stdout, new RegExp(`\\n${id} +enabled +${receiver.url.replace(/[./]/g, '\\$&')} +\\* +ORDER_ADD,ORDER_COMPLETE +0 +- +20\\S+ \\S+Z +-$`, 'm'))

  const sent = receiver.requests.length
  const replayed = await runWaybill(['webhooks', 'replay', id, '--since', before], { env })
  t.match(replayed, { code: 0, stdout: `${id}: 4 message(s) queued again\n` })
  await eventually('replayed', () => receiver.requests.length === sent + 4)
  const firstIds = new Set(receiver.requests.slice(0, sent).map((r) => r.webhookId))
  t.ok(receiver.requests.slice(sent).every((r) => firstIds.has(r.webhookId) && r.status === 204), 'the same webhook-ids, sent again')

  gone = true
  t.equal((await client.post(addBody('W-3'))).status, 201)
  await eventually('disabled by a 410', async () => (await runWaybill(['webhooks', 'list', '--json'], { env })).stdout.includes('"state": "disabled"'))
  const [endpoint] = JSON.parse((await runWaybill(['webhooks', 'list', '--json'], { env })).stdout) as Array<Record<string, unknown>>
  t.match(endpoint, { id, state: 'disabled', disabled_reason: /^the receiver answered 410 Gone/, backlog: 1 })
  t.match((await runWaybill(['webhooks', 'list'], { env })).stdout, /disabled 20\S+ \S+Z: the receiver answered 410 Gone/)
  const metrics = /metrics at (http:\/\/[^\s"]+)/.exec(server.output())?.[1] ?? ''
  await eventually('reported on /metrics', async () => (await (await fetch(metrics)).text()).includes(`waybill_webhook_enabled{endpoint="${id}"} 0`))
  const scraped = await (await fetch(metrics)).text()
  t.match(scraped, new RegExp(`waybill_webhook_attempts_total\\{endpoint="${id}",outcome="gone"\\} 1`))
  t.match(scraped, new RegExp(`waybill_webhook_backlog_messages\\{endpoint="${id}"\\} 1`))
  t.match(scraped, /waybill_webhook_oldest_pending_seconds\{endpoint="ep_\w+"\} \d/)

  gone = false
  t.match(await runWaybill(['webhooks', 'enable', id], { env }), { code: 0, stdout: `${id} enabled\n` })
  await eventually('delivered after enable', () => receiver.requests.at(-1)?.message?.data.order_id === 'W-3' && receiver.requests.at(-1)?.status === 204)
  const rotated = await runWaybill(['webhooks', 'rotate-secret', id, '--grace', '1h'], { env })
  t.match(rotated, { code: 0, stdout: /^whsec_\S+\n$/, stderr: /the old one signs beside it until 20/ })
  t.match(await runWaybill(['webhooks', 'disable', id], { env }), { code: 0, stdout: `${id} disabled\n` })
  t.match(await runWaybill(['webhooks', 'list'], { env }), { stdout: /disabled by the operator; 2 secrets sign \(rotation grace\)/ })
  t.match(await runWaybill(['webhooks', 'remove', id], { env }), { code: 0, stdout: `${id} removed\n` })
  t.match(await runWaybill(['webhooks', 'list'], { env }), { stdout: 'no webhook endpoints\n' })
})
