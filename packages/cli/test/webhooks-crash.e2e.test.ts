import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runWaybill } from '../src/testing.js'
import { addBody, clientFor, completeBody, type Client } from './https-client.js'
import { allOrderEvents, openSqliteEventStore } from './store-checks.js'
import { eventually, startReceiver } from './webhook-receiver.js'
import { serve, type Served } from './waybill-process.js'

t.setTimeout(90_000)

const updateBody = (orderId: string) => ({
  event: 'ORDER_UPDATE', event_date: '2025-03-01T11:00:00Z',
  event_payload: { order_id: orderId, status: 'in_progress', address: '2 Main St', delivery_date: '2025-03-02T10:00:00Z' },
})

interface Sent {
  readonly body: unknown
  readonly status: number
  /** The stored event's id (Waybill-Event-Id), null while no answer came. */
  eventId: string | null
}

/** One courier: orders added, updated, completed, one after another, until the server stops answering. */
async function courier(client: Client, prefix: string, sent: Sent[]): Promise<void> {
  for (let n = 0; ; n += 1) {
    for (const [body, status] of [[addBody(`${prefix}-${n}`), 201], [updateBody(`${prefix}-${n}`), 202], [completeBody(`${prefix}-${n}`), 202]] as const) {
      const entry: Sent = { body, status, eventId: null }
      sent.push(entry)
      try {
        const answer = await client.post(body)
        if (answer.status !== status) return
        entry.eventId = String(answer.headers['waybill-event-id'])
      } catch {
        return
      }
    }
  }
}

t.test('a receiver that fails at first, a service SIGKILLed and restarted mid-run: every accepted event arrives, signed, with one webhook-id, in order per order', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-webhooks-crash-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // Retries every 100 ms, never spent in this run; the receiver's first five answers are 500.
  const env = {
    WAYBILL_DATA_DIR: dir, LOG_LEVEL: 'error', WAYBILL_RATE_LIMIT: '1000000',
    WAYBILL_WEBHOOK_RETRIES: Array.from({ length: 50 }, () => '100ms').join(','), WAYBILL_WEBHOOK_TIMEOUT_MS: '2000',
  }
  const receiver = await startReceiver((n) => n < 5 ? 500 : 204)
  t.teardown(() => receiver.close())
  // Added before the first start, as an operator may: the endpoint gets every event from the first.
  const added = await runWaybill(['webhooks', 'add', receiver.url], { env })
  t.equal(added.code, 0, added.stderr)
  receiver.secret = added.stdout.trim().split('\n')[1] ?? ''
  let server: Served = await serve(env)
  t.teardown(() => { server.child.kill('SIGKILL') })

  const sent: Sent[] = []
  const client = await clientFor(server.httpsUrl, dir)
  const couriers = ['a', 'b', 'c', 'd'].map((prefix) => courier(client, prefix, sent))
  await eventually('deliveries under way', () => receiver.requests.length >= 12)
  const killed = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGKILL')
  await Promise.all([...couriers, killed])
  await client.close()
  const beforeKill = receiver.requests.length

  server = await serve(env)
  const again = await clientFor(server.httpsUrl, dir)
  t.teardown(() => again.close())
  // Unanswered requests are sent again as they were: each lands once (an exact retry answers its id).
  for (const entry of sent.filter((e) => e.eventId === null)) {
    const answer = await again.post(entry.body)
    t.equal(answer.status, entry.status, 'an unanswered event sent again')
    entry.eventId = String(answer.headers['waybill-event-id'])
  }
  for (const order of ['e-0', 'e-1']) {
    for (const [body, status] of [[addBody(order), 201], [completeBody(order), 202]] as const) {
      const answer = await again.post(body)
      t.equal(answer.status, status)
      sent.push({ body, status, eventId: String(answer.headers['waybill-event-id']) })
    }
  }
  const accepted = new Set(sent.map((e) => e.eventId))
  await eventually(`all ${accepted.size} accepted events delivered`,
    () => [...accepted].every((id) => receiver.requests.some((r) => r.status === 204 && r.message?.data.event_id === id)), 30_000)
  t.equal(await server.stop(), 0)
  t.ok(receiver.requests.length > beforeKill, 'deliveries went on after the restart')

  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') })
  t.teardown(() => store.close())
  const stored = await allOrderEvents(store)
  t.same(new Set(stored.map((e) => e.id)), accepted, 'the events delivered are exactly the events the log holds')
  t.ok(stored.length >= 14, `${stored.length} events`)

  const requests = receiver.requests
  t.equal(requests.filter((r) => r.message === null).length, 0, `all ${requests.length} requests verify with the standardwebhooks library`)
  t.equal(requests.filter((r) => r.status === 500).length, 5, 'the first five were refused')
  const idsOf = new Map<string, Set<string>>()
  for (const r of requests) idsOf.set(r.message?.data.event_id ?? '', (idsOf.get(r.message?.data.event_id ?? '') ?? new Set()).add(r.webhookId))
  t.same([...idsOf.values()].filter((ids) => ids.size !== 1), [], 'one webhook-id per event, across all its attempts, before and after the kill')
  // In order per order: no request for revision r + 1 before revision r of the same order was answered 2xx.
  const outOfOrder = stored.filter((event) => {
    const first = requests.findIndex((r) => r.message?.data.event_id === event.id)
    return event.revision > 0 && !requests.slice(0, first).some((r) => r.status === 204
      && `order-${r.message?.data.account}-${r.message?.data.order_id}` === event.streamName && r.message?.data.revision === event.revision - 1)
  })
  t.same(outOfOrder.map((e) => `${e.streamName}@${e.revision}`), [], "each order's events in order")
})
