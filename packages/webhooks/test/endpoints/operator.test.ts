import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { DeliveryLog, startWebhookDeliverer, UnknownEndpointError, WebhookAdmin } from '../../src/index.js'
import { eventually, send, startReceiver, storeDir, PLAIN_KEYS } from '../helpers.js'

// The endpoint-wide rule (no delivery for the schedule's span) far off but where a test is about it.
const FAST = { retry: { schedule: [10, 20, 30], disableAfterMs: 60_000 }, timeoutMs: 400, pollMs: 30 }

async function setUp(t: Test) {
  const { dir, store } = await storeDir(t)
  const admin = WebhookAdmin.open(dir)
  const log = new DeliveryLog(dir)
  t.teardown(() => { admin.close(); log.close() })
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store, dataDir: dir, refreshMs: 30, settings: FAST })
  t.teardown(() => running.stop())
  return { dir, store, admin, log, running }
}

/** Each endpoint's pending messages counted row by row, to hold the kept count (the listings' backlog) against. */
function countedBacklogs(dir: string): Record<string, number> {
  const db = new Sqlite(join(dir, 'webhooks.sqlite'), { readonly: true })
  try {
    const rows = db.prepare(`SELECT e.id, (SELECT COUNT(*) FROM messages m WHERE m.endpoint_id = e.id AND m.state = 'pending') AS n FROM endpoints e`).all() as Array<{ id: string; n: number }>
    return Object.fromEntries(rows.map((row) => [row.id, row.n]))
  } finally {
    db.close()
  }
}
const keptBacklogs = (log: DeliveryLog): Record<string, number> => Object.fromEntries(log.endpoints().map((e) => [e.id, e.backlog]))

t.test('410 Gone disables the endpoint at once; enable resumes with the message that was refused', async (t) => {
  const { store, admin, log, running } = await setUp(t)
  const receiver = await startReceiver(t, (n) => n === 1 ? 410 : 204)
  const { id, secret } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: null })
  receiver.secrets = [secret]
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await send(store, 'acme', 'ORDER_UPDATE', 'a', 1)
  await send(store, 'acme', 'ORDER_COMPLETE', 'a', 2)
  await eventually('disabled', () => log.endpoint(id)?.state === 'disabled')
  // The third event may be queued after the second's 410.
  await eventually('the third event queued', () => log.endpoint(id)?.backlog === 2)
  t.equal(receiver.requests.length, 2, 'nothing sent after the 410')
  t.match(log.endpoint(id), { state: 'disabled', disabled_reason: /^the receiver answered 410 Gone \(msg_/, backlog: 2, last_success_at: /^20/ })
  await eventually('reported', () => running.status()[0]?.enabled === false)
  t.match(log.attempts({ endpointId: id, failed: true, limit: 5 }), [{ outcome: 'gone', status: 410 }])
  admin.enable(id)
  await eventually('delivered after enable', () => log.endpoint(id)?.backlog === 0)
  t.same(receiver.requests.map((r) => r.status), [204, 410, 204, 204])
  t.equal(receiver.requests[1]?.headers['webhook-id'], receiver.requests[2]?.headers['webhook-id'], 'the refused message comes first again, same id')
})

t.test('an endpoint failing for its whole schedule is disabled and says why; enable starts a fresh schedule', async (t) => {
  const { dir, store, admin, log } = await setUp(t)
  let failing = true
  const receiver = await startReceiver(t, () => failing ? { status: 503, body: 'down for maintenance\n' } : 200)
  const { id, secret } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: null })
  receiver.secrets = [secret]
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await eventually('disabled', () => log.endpoint(id)?.state === 'disabled')
  t.equal(receiver.requests.length, 4, 'the first attempt and the three retries of the schedule')
  t.match(log.endpoint(id)?.disabled_reason, /^4 attempts of msg_\S+ failed, the last at 20\S+: HTTP 503: down for maintenance$/)
  failing = false
  admin.enable(id)
  await eventually('delivered', () => log.endpoint(id)?.backlog === 0)
  t.equal(receiver.requests.length, 5)
  t.equal(log.attempts({ endpointId: id, limit: 10 }).length, 5, 'every attempt in the log')
  admin.disable(id)
  t.match(log.endpoint(id), { state: 'disabled', disabled_reason: 'disabled by the operator' })
  await send(store, 'acme', 'ORDER_UPDATE', 'a', 1)
  await eventually('queued while disabled', () => log.endpoint(id)?.backlog === 1)
  t.equal(receiver.requests.length, 5, 'a disabled endpoint is sent nothing')
  t.same(keptBacklogs(log), countedBacklogs(dir), 'the backlog kept is the backlog counted')
})

t.test('an endpoint none of whose attempts delivers for the schedule\'s span is disabled, however far its messages are in their schedules', async (t) => {
  const { dir, store } = await storeDir(t)
  const admin = WebhookAdmin.open(dir)
  const log = new DeliveryLog(dir)
  t.teardown(() => { admin.close(); log.close() })
  const receiver = await startReceiver(t, () => 500)
  const { id, secret } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: null })
  receiver.secrets = [secret]
  // Its own deliverer: retries every 20 ms, ten of them (no message spends its schedule within the span), the span 300 ms.
  const running = startWebhookDeliverer({ keys: PLAIN_KEYS, store, dataDir: dir, refreshMs: 30, settings: { retry: { schedule: Array.from({ length: 10 }, () => 20), disableAfterMs: 300 }, timeoutMs: 400, pollMs: 30 } })
  t.teardown(() => running.stop())
  for (const order of ['a', 'b', 'c', 'd', 'e']) await send(store, 'acme', 'ORDER_ADD', order)
  await eventually('disabled', () => log.endpoint(id)?.state === 'disabled')
  t.match(log.endpoint(id)?.disabled_reason, /^no attempt has delivered since 20\S+ \(the whole retry schedule\), the last at 20\S+: HTTP 500$/)
  t.ok(log.attempts({ endpointId: id, limit: 100 }).length < 5 * 11, 'before any message spent its eleven attempts')
  admin.enable(id)
  t.match(log.endpoint(id), { state: 'enabled', disabled_reason: null }, 'enable starts afresh')
})

t.test('replay sends a range again with the same ids, in order, before what waits; every endpoint when none is named', async (t) => {
  const { dir, store, admin, log } = await setUp(t)
  const one = await startReceiver(t)
  const two = await startReceiver(t)
  const first = admin.add({ url: new URL(one.url), account: null, events: null, head: null })
  const second = admin.add({ url: new URL(two.url), account: null, events: null, head: null })
  one.secrets = [first.secret]
  two.secrets = [second.secret]
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await send(store, 'acme', 'ORDER_UPDATE', 'a', 1)
  await eventually('sent', () => log.endpoints().every((e) => e.backlog === 0 && e.last_success_at !== null) && two.requests.length === 2)
  const middle = new Date()
  await new Promise((resolve) => setTimeout(resolve, 5))
  await send(store, 'acme', 'ORDER_ADD', 'b')
  await eventually('sent', () => one.requests.length === 3 && two.requests.length === 3)

  t.same(admin.replay(first.id, new Date(0), middle), [{ endpointId: first.id, messages: 2 }])
  t.same(keptBacklogs(log), countedBacklogs(dir), 'a replay counts its messages pending again')
  await eventually('replayed', () => one.requests.length === 5)
  t.same(one.requests.slice(3).map((r) => r.headers['webhook-id']), one.requests.slice(0, 2).map((r) => r.headers['webhook-id']), 'the same ids, in order')
  t.equal(two.requests.length, 3, 'only the endpoint named')
  t.same(admin.replay(null, middle, null), [{ endpointId: first.id, messages: 1 }, { endpointId: second.id, messages: 1 }])
  await eventually('replayed', () => one.requests.length === 6 && two.requests.length === 4)
  t.equal(two.requests[3]?.message?.data.order_id, 'b')
  await eventually('delivered again', () => log.endpoints().every((e) => e.backlog === 0))
  t.same(keptBacklogs(log), countedBacklogs(dir), 'and their deliveries count them out')
  t.throws(() => admin.replay('ep_nope', middle, null), UnknownEndpointError)
})

t.test('rotate-secret: during the grace both signatures, each verifying alone; without one the old secret stops; remove stops everything', async (t) => {
  const { store, admin, log } = await setUp(t)
  const receiver = await startReceiver(t)
  const { id, secret: old } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: null })
  const rotated = admin.rotateSecret(id, 60_000)
  t.not(rotated, old)
  t.equal(log.endpoint(id)?.signing_secrets, 2)
  receiver.secrets = [old]
  await send(store, 'acme', 'ORDER_ADD', 'a')
  await eventually('sent', () => receiver.requests.length === 1)
  t.equal(receiver.requests[0]?.headers['webhook-signature']?.split(' ').length, 2, 'two signatures, space-separated')
  t.not(receiver.requests[0]?.message, null, 'a receiver with the old secret verifies')
  receiver.secrets = [rotated]
  await send(store, 'acme', 'ORDER_UPDATE', 'a', 1)
  await eventually('sent', () => receiver.requests.length === 2)
  t.not(receiver.requests[1]?.message, null, 'a receiver with the new secret verifies')
  const third = admin.rotateSecret(id, 0)
  t.equal(log.endpoint(id)?.signing_secrets, 1)
  receiver.secrets = [rotated]
  await send(store, 'acme', 'ORDER_ADD', 'b')
  await eventually('sent', () => receiver.requests.length === 3)
  t.equal(receiver.requests[2]?.message, null, 'the replaced secret no longer verifies')
  receiver.secrets = [third]
  t.equal(receiver.requests[2]?.headers['webhook-signature']?.split(' ').length, 1)

  admin.remove(id)
  t.same(log.endpoints(), [])
  t.same(log.attempts({ limit: 10 }), [], 'its delivery log is gone with it')
  await send(store, 'acme', 'ORDER_ADD', 'c')
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.equal(receiver.requests.length, 3, 'a removed endpoint is sent nothing more')
  for (const call of [() => admin.remove(id), () => admin.enable(id), () => admin.disable(id), () => admin.rotateSecret(id, 0)]) {
    t.throws(call, { name: 'UnknownEndpointError', message: `no webhook endpoint ${id} (see waybill webhooks list)` })
  }
})
