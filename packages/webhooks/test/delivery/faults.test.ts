import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import type { EventStore } from '@waybill/event-store'
import { DeliveryLog, startWebhookDeliverer, WEBHOOKS_FILE, WebhookAdmin } from '../../src/index.js'
import { eventually, send, startReceiver, storeDir, PLAIN_KEYS } from '../helpers.js'

// The endpoint-wide rule (no delivery for the schedule's span) far off: these tests are about each message's schedule.
const FAST = { retry: { schedule: [10, 10], disableAfterMs: 60_000 }, timeoutMs: 400, pollMs: 30 }

function recorder(): { lines: string[]; logger: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void } } {
  const lines: string[] = []
  const push = (_: object, message?: string): void => { lines.push(message ?? '') }
  return { lines, logger: { info: push, warn: push, error: push } }
}

t.test('a store that cannot be read while sending: told once, retried with backoff (not counted against the receiver), then delivered', async (t) => {
  const { dir, store } = await storeDir(t)
  let refusals = 3
  // The real store, whose stream reads fail three times.
  const flaky: EventStore = {
    appendToStream: (...args) => store.appendToStream(...args),
    readAll: (options) => store.readAll(options),
    readAllForProjection: (options) => store.readAllForProjection(options),
    headPosition: () => store.headPosition(),
    countAfter: (options) => store.countAfter(options),
    onAppended: (listener) => store.onAppended(listener),
    close: () => store.close(),
    readStream: (...args) => refusals-- > 0 ? Promise.reject(new Error('store away')) : store.readStream(...args),
  }
  const receiver = await startReceiver(t)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  receiver.secrets = [admin.add({ url: new URL(receiver.url), account: null, events: null, head: null }).secret]
  const { lines, logger } = recorder()
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store: flaky, dataDir: dir, refreshMs: 30, settings: FAST, logger })
  t.teardown(() => running.stop())
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await receiver.until((requests) => requests.length === 1)
  await eventually('recorded', () => running.status()[0]?.attempts.delivered === 1)
  t.equal(lines.filter((line) => /cannot deliver; retrying with backoff/.test(line)).length, 1, 'told once')
  t.ok(lines.some((line) => /delivers again/.test(line)))
  t.match(running.status()[0], { enabled: true, attempts: { delivered: 1, error: 0 } }, 'our failure is no attempt')
})

t.test('an event that is not where its message says: an error attempt each time, then the endpoint disabled and reported', async (t) => {
  const { dir, store } = await storeDir(t)
  const receiver = await startReceiver(t)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  const { id } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: await store.headPosition() })
  admin.disable(id)
  await send(store, 'acme', 'ORDER_ADD', 'a')
  // The message points past the order's last event, as a store rewritten behind Waybill's back would leave it.
  const { lines, logger } = recorder()
  const db = new Sqlite(join(dir, WEBHOOKS_FILE))
  t.teardown(() => db.close())
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store, dataDir: dir, refreshMs: 30, settings: FAST, logger })
  t.teardown(() => running.stop())
  const log = new DeliveryLog(dir)
  t.teardown(() => log.close())
  await eventually('queued while disabled', () => log.endpoint(id)?.backlog === 1)
  db.prepare('UPDATE messages SET revision = 5').run()
  admin.enable(id)
  await eventually('disabled', () => log.endpoint(id)?.state === 'disabled')
  t.same(receiver.requests, [], 'nothing sent')
  t.match(log.attempts({ limit: 5 }), [{ outcome: 'error', status: null, error: /^no message could be made: event \S+ is not at revision 5 of order-acme-a$/ }])
  t.match(log.endpoint(id)?.disabled_reason, /^3 attempts of msg_\S+ failed, the last at \S+: no message could be made/)
  await eventually('reported', () => lines.includes(`webhooks: endpoint ${id} disabled`))
  await eventually('counted', () => running.status()[0]?.attempts.error === 3)
})
