import { mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { DeliveryLog, startWebhookDeliverer, WEBHOOKS_FILE, WebhookAdmin } from '../../src/index.js'
import { eventually, send, startReceiver, storeDir, PLAIN_KEYS } from '../helpers.js'

t.test('the file holds secrets: made 0600; reading never makes it; another schema version is refused', async (t) => {
  const { dir } = await storeDir(t)
  const log = new DeliveryLog(dir)
  t.teardown(() => log.close())
  t.same(log.endpoints(), [], 'no file: no endpoint')
  t.same(log.attempts({ limit: 5 }), [])
  await t.rejects(stat(join(dir, WEBHOOKS_FILE)), { code: 'ENOENT' }, 'and no file made')
  await writeFile(join(dir, WEBHOOKS_FILE), '')
  const mode = (await stat(join(dir, WEBHOOKS_FILE))).mode
  t.same(log.endpoints(), [], 'an empty file reads as no endpoint')
  log.close()
  const admin = WebhookAdmin.open(dir)
  admin.close()
  t.equal((await stat(join(dir, WEBHOOKS_FILE))).mode, mode, 'an existing file keeps its mode')

  const fresh = await storeDir(t)
  WebhookAdmin.open(fresh.dir).close()
  t.equal((await stat(join(fresh.dir, WEBHOOKS_FILE))).mode & 0o777, 0o600, 'a new file is 0600')
  const db = new Sqlite(join(fresh.dir, WEBHOOKS_FILE))
  db.prepare(`UPDATE meta SET value = '2' WHERE key = 'schema_version'`).run()
  db.close()
  t.throws(() => WebhookAdmin.open(fresh.dir), { message: /has schema version "2"; this Waybill reads version 1: upgrade Waybill/ })
  const reader = new DeliveryLog(fresh.dir)
  t.throws(() => reader.endpoints(), { message: /schema version "2"/ })
})

t.test('the delivery log pages newest first; the listing shows a Retry-After hold', async (t) => {
  const { dir, store } = await storeDir(t)
  const receiver = await startReceiver(t, (n) => n < 3 ? { status: 429, headers: { 'retry-after': '60' } } : 204)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  const { id, secret } = admin.add({ url: new URL(receiver.url), account: 'acme', events: ['OrderAdded'], head: null })
  receiver.secrets = [secret]
  // Accepted before the deliverer starts, so the three are queued together and tried at once:
  // the first 429 holds the endpoint.
  for (const order of ['a', 'b', 'c']) await send(store, 'acme', 'ORDER_ADD', order)
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store, dataDir: dir, refreshMs: 30, settings: { retry: { schedule: [10, 10, 10], disableAfterMs: 60_000 }, pollMs: 30, concurrency: 3 } })
  t.teardown(() => running.stop())
  const log = new DeliveryLog(dir)
  t.teardown(() => log.close())
  await eventually('three attempts', () => log.attempts({ limit: 10 }).length === 3)
  const [newest, ...older] = log.attempts({ limit: 10 })
  t.same(log.attempts({ limit: 1 }), [newest])
  t.same(log.attempts({ limit: 5, before: newest?.id }), older, 'the next page')
  t.match(newest, { endpoint_id: id, account: 'acme', event_type: 'OrderAdded', revision: 0, outcome: 'failed', status: 429, webhook_id: /^msg_/ })
  t.match(log.endpoint(id), { state: 'enabled', held_until: /^20/, account: 'acme', events: ['ORDER_ADD'], backlog: 3 })
  t.equal(log.endpoint('ep_none'), null)
  t.match(log.endpoint(id)?.oldest_pending_at, /^20/)
})

t.test('a deliverer that cannot open its file says so once and starts once it can', async (t) => {
  const { dir, store } = await storeDir(t)
  const lines: string[] = []
  const logger = { info: (_: object, m?: string) => lines.push(m ?? ''), warn: () => undefined, error: (_: object, m?: string) => lines.push(m ?? '') }
  const missing = join(dir, 'not-yet')
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store, dataDir: missing, refreshMs: 20, logger })
  t.teardown(() => running.stop())
  await eventually('told', () => lines.length > 0)
  await new Promise((resolve) => setTimeout(resolve, 60))
  t.same(lines, ['webhooks: cannot read the endpoints; trying again'], 'once')
  const receiver = await startReceiver(t)
  await mkdir(missing)
  const admin = WebhookAdmin.open(missing)
  t.teardown(() => admin.close())
  receiver.secrets = [admin.add({ url: new URL(receiver.url), account: null, events: null, head: null }).secret]
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await receiver.until((requests) => requests.length === 1)
  t.same(lines.slice(1, 2), ['webhooks: the endpoints can be read again'])
  t.not(receiver.requests[0]?.message, null)
})
