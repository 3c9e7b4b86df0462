import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import { DeliveryLog, startWebhookDeliverer, WebhookAdmin, webhookMetrics, type WebhookDeliverer } from '../../src/index.js'
import { eventually, send, startReceiver, storeDir, type Received, PLAIN_KEYS } from '../helpers.js'

// Milliseconds, not hours: the schedule, the timeout and the loops' polls are the deliverer's settings.
const FAST = { retry: { schedule: [20, 40, 80, 160, 320], disableAfterMs: 60_000 }, timeoutMs: 400, pollMs: 50 }

function deliverer(t: { teardown(fn: () => unknown): void }, options: Omit<Parameters<typeof startWebhookDeliverer>[0], 'keys'>): WebhookDeliverer {
  const started = startWebhookDeliverer({ keys: PLAIN_KEYS, refreshMs: 50, ...options, settings: { ...FAST, ...options.settings } })
  t.teardown(() => started.stop())
  return started
}

const delivered = (requests: readonly Received[], eventIds: readonly string[]): boolean =>
  eventIds.every((id) => requests.some((r) => r.status === 204 && r.message?.data.event_id === id))

t.test('every accepted event reaches the receiver, signed, in order per order, through failures; the webhook-id holds across attempts', async (t) => {
  const { dir, store } = await storeDir(t)
  await send(store, 'acme', 'ORDER_ADD', 'before')
  // The first six requests fail, whatever they carry.
  const receiver = await startReceiver(t, (n) => n < 6 ? 500 : 204)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  const { id, secret } = admin.add({ url: new URL(receiver.url), account: null, events: null, head: await store.headPosition() })
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'a whsec_ secret of 32 bytes')
  receiver.secrets = [secret]
  // A timeout long enough that a loaded machine never turns a 500 into a timeout here.
  const running = deliverer(t, { store, dataDir: dir, settings: { timeoutMs: 5_000 } })

  const ids: string[] = []
  for (let n = 0; n < 4; n += 1) ids.push(await send(store, 'acme', 'ORDER_ADD', `o-${n}`, n))
  for (let n = 0; n < 4; n += 1) ids.push(await send(store, n % 2 === 0 ? 'acme' : 'globex', 'ORDER_ADD', `p-${n}`, n))
  for (let n = 0; n < 4; n += 1) ids.push(await send(store, 'acme', 'ORDER_UPDATE', `o-${n}`, n + 10))
  for (let n = 0; n < 4; n += 1) ids.push(await send(store, 'acme', n % 2 === 0 ? 'ORDER_COMPLETE' : 'ORDER_CANCELED', `o-${n}`, n + 20))
  await receiver.until((requests) => delivered(requests, ids))

  const requests = receiver.requests
  t.equal(requests.filter((r) => r.message === null).length, 0, 'every request verifies with the standardwebhooks library')
  t.equal(requests.filter((r) => r.status === 500).length, 6, 'the six failures were answered')
  t.notOk(requests.some((r) => r.message?.data.order_id === 'before'), 'an event accepted before the endpoint was added is not sent')
  const webhookIds = new Map<string, Set<string>>()
  for (const r of requests) {
    const set = webhookIds.get(r.message?.data.event_id ?? '') ?? new Set()
    set.add(r.headers['webhook-id'] ?? '')
    webhookIds.set(r.message?.data.event_id ?? '', set)
  }
  t.same([...webhookIds.values()].map((set) => set.size), ids.map(() => 1), 'one webhook-id per event, on every attempt')
  t.ok(requests.some((r, i) => requests.findIndex((o) => o.headers['webhook-id'] === r.headers['webhook-id']) !== i), 'some event was attempted more than once')
  // Each order's events arrive in revision order: no request for revision r + 1 before revision r was answered 2xx.
  const inOrder = ids.map((eventId) => {
    const first = requests.findIndex((r) => r.message?.data.event_id === eventId)
    const { order_id: orderId, revision } = requests[first]!.message!.data
    return revision === 0 || requests.slice(0, first).some((r) => r.status === 204 && r.message?.data.order_id === orderId && r.message.data.revision === revision - 1)
  })
  t.same(inOrder, ids.map(() => true), "each order's events in order")
  const body = JSON.parse(requests.find((r) => r.message?.data.event_id === ids[12])!.body) as { type: string; timestamp: string; data: Record<string, unknown> }
  t.equal(body.type, 'order.completed')
  t.match(body.data, { account: 'acme', order_id: 'o-0', event_type: 'OrderCompleted', revision: 2, pod: { url: '/v1/orders/o-0/pod', sha256: 'a'.repeat(64) } })
  t.match(requests[0]!.headers, { 'content-type': 'application/json', 'user-agent': /^Waybill\// })

  const log = new DeliveryLog(dir)
  t.teardown(() => log.close())
  // The receiver has its answers before the deliverer records them; the status counts each once recorded.
  await eventually('every delivery recorded', () => running.status()[0]?.attempts.delivered === ids.length && running.status()[0]?.backlog === 0)
  const failed = log.attempts({ failed: true, limit: 50 })
  t.equal(failed.length, 6, 'the delivery log holds every failed attempt')
  t.match(failed[0], { endpoint_id: id, outcome: 'failed', status: 500, error: 'HTTP 500' })
  t.equal(log.attempts({ endpointId: id, limit: 100 }).length, 6 + ids.length, 'and every attempt')
  const [status] = running.status()
  t.match(status, { id, enabled: true, backlog: 0, oldestPendingAt: null, attempts: { delivered: ids.length, failed: 6, gone: 0 } })
  const families = Object.fromEntries(webhookMetrics(running.status()).map((family) => [family.name, family]))
  t.match(families['waybill_webhook_attempts_total'], { type: 'counter', samples: [{ labels: { endpoint: id, outcome: 'delivered' }, value: ids.length }, { labels: { outcome: 'failed' }, value: 6 }] })
  t.match(families['waybill_webhook_backlog_messages'], { type: 'gauge', samples: [{ labels: { endpoint: id }, value: 0 }] })
  t.match(families['waybill_webhook_oldest_pending_seconds'], { samples: [{ value: 0 }] })
})

t.test("a receiver that never answers holds up only its own endpoint; an account and event filter; Retry-After holds an endpoint", async (t) => {
  const { dir, store } = await storeDir(t)
  const dead = await startReceiver(t, () => 'hang')
  const busy = await startReceiver(t, (n) => n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : 204)
  const live = await startReceiver(t)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  const head = await store.headPosition()
  dead.secrets = [admin.add({ url: new URL(dead.url), account: null, events: null, head }).secret]
  busy.secrets = [admin.add({ url: new URL(busy.url), account: null, events: null, head }).secret]
  const only = admin.add({ url: new URL(live.url), account: 'acme', events: ['OrderCompleted'], head })
  live.secrets = [only.secret]
  const running = deliverer(t, { store, dataDir: dir, settings: { concurrency: 2 } })

  const started = Date.now()
  const completed: string[] = []
  for (let n = 0; n < 6; n += 1) {
    await send(store, n < 3 ? 'acme' : 'globex', 'ORDER_ADD', `o-${n}`, n)
    const id = await send(store, n < 3 ? 'acme' : 'globex', 'ORDER_COMPLETE', `o-${n}`, n + 1)
    if (n < 3) completed.push(id)
  }
  await live.until((requests) => delivered(requests, completed))
  t.ok(Date.now() - started < 2_000, 'the live endpoint is served while the dead one times out')
  t.same(live.requests.map((r) => r.message?.data.event_id), completed, 'only the account and event type it asked for')
  await busy.until((requests) => requests.filter((r) => r.status === 204).length === 12, 10_000)
  const [first] = busy.requests
  const again = busy.requests.slice(1).find((r) => r.headers['webhook-id'] === first?.headers['webhook-id'])
  t.equal(first?.status, 429)
  t.ok(Number(again?.headers['webhook-timestamp']) - Number(first?.headers['webhook-timestamp']) >= 1, 'not sent again before Retry-After ran out')
  await dead.until((requests) => requests.length >= 4)
  t.equal(new Set(dead.requests.slice(0, 2).map((r) => r.message?.data.order_id)).size, 2, 'at most two at once, of two orders')
  const log = new DeliveryLog(dir)
  t.teardown(() => log.close())
  await eventually('a timeout recorded', () => log.attempts({ failed: true, limit: 10 }).some((a) => a.outcome === 'timeout'))
  t.match(log.attempts({ failed: true, limit: 10 }).find((a) => a.outcome === 'timeout'), { status: null, error: /^no answer within 400 ms$/ })
  t.ok(running.status().every((status) => status.enabled), 'a slow receiver is retried, not disabled, before its schedule is spent')
  t.equal(dead.requests.filter((r) => r.message?.data.order_id === 'o-0' && r.message.data.revision === 1).length, 0,
    "an order's later event waits behind its first")
})

t.test('the queue and the sender use the store port alone: on the in-memory adapter too, every event arrives in order', async (t) => {
  // The adapters share one contract suite (SQLite, EventStoreDB, memory); the deliverer's file stays in the data dir.
  const dir = await mkdtemp(join(tmpdir(), 'waybill-webhooks-memory-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = openMemoryEventStore({ readAllBatchSize: 3 })
  t.teardown(() => store.close())
  await send(store, 'acme', 'ORDER_ADD', 'before')
  const receiver = await startReceiver(t, (n) => n < 2 ? 503 : 204)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  receiver.secrets = [admin.add({ url: new URL(receiver.url), account: null, events: null, head: await store.headPosition() }).secret]
  deliverer(t, { store, dataDir: dir, batchSize: 2 })
  const ids: string[] = []
  for (let n = 0; n < 3; n += 1) {
    ids.push(await send(store, 'acme', 'ORDER_ADD', `m-${n}`, n))
    ids.push(await send(store, 'acme', 'ORDER_UPDATE', `m-${n}`, n + 10))
    ids.push(await send(store, 'acme', 'ORDER_CANCELED', `m-${n}`, n + 20))
  }
  await receiver.until((requests) => delivered(requests, ids))
  t.equal(receiver.requests.filter((r) => r.message === null).length, 0, 'every request verifies with the standardwebhooks library')
  t.notOk(receiver.requests.some((r) => r.message?.data.order_id === 'before'), 'from the head of the log when the endpoint was added')
  const firstDelivered = ids.map((id) => receiver.requests.findIndex((r) => r.status === 204 && r.message?.data.event_id === id))
  for (let n = 0; n < 3; n += 1) {
    const [add = 0, update = 0, cancel = 0] = firstDelivered.slice(n * 3, n * 3 + 3)
    t.ok(add < update && update < cancel, `m-${n}: added, updated, canceled, in that order`)
  }
})

t.test('a receiver that fails every attempt at once is probed one attempt at a time, not sent every order as fast as each fails; a delivery resumes them all', async (t) => {
  const { dir, store } = await storeDir(t)
  let down = true
  const receiver = await startReceiver(t, () => down ? 500 : 204)
  const admin = WebhookAdmin.open(dir)
  t.teardown(() => admin.close())
  receiver.secrets = [admin.add({ url: new URL(receiver.url), account: null, events: null, head: await store.headPosition() }).secret]
  const ids: string[] = []
  for (let n = 0; n < 40; n += 1) ids.push(await send(store, 'acme', 'ORDER_ADD', `q-${n}`, n))
  // Pauses between probes of 50, 100, 200, 400 ms (the schedule), and each message's own retries as long.
  deliverer(t, { store, dataDir: dir, settings: { retry: { schedule: [50, 100, 200, 400, 400, 400, 400, 400, 400], disableAfterMs: 60_000 }, concurrency: 4 } })
  await receiver.until((requests) => requests.length >= 4)
  await new Promise((resolve) => setTimeout(resolve, 600))
  const whileDown = receiver.requests.length
  t.ok(whileDown <= 10, `${whileDown} requests in 0.6 s while down (40 orders wait: without probing, each would be tried at once)`)
  down = false
  await receiver.until((requests) => delivered(requests, ids), 10_000)
  t.equal(receiver.requests.filter((r) => r.status === 204).length, 40, 'then every order, once')
})
