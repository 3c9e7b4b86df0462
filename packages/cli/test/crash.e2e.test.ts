import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { streamNameFor } from '@waybill/domain'
import { openSqliteKeyStore } from '@waybill/personal-data'
import { currentGeneration, ReadModel, startProjector, verifyOrders } from '@waybill/projector'
import { addBody, clientFor, completeBody, type Client } from './https-client.js'
import { allOrderEvents, integrityCheck, openSqliteEventStore } from './store-checks.js'
import { serve, type Served } from './waybill-process.js'

// WAYBILL_CRASH_ROUNDS=50 for a long run; the suite runs a few.
const ROUNDS = Number(process.env['WAYBILL_CRASH_ROUNDS'] ?? 3)
const CLIENTS = 16
t.setTimeout(60_000 + ROUNDS * 20_000)

interface Sent {
  readonly orderId: string
  readonly kind: 'add' | 'complete'
  readonly body: unknown
  /** The success status the server answered, or null when no answer came before the kill. */
  status: number | null
}

const env = (dir: string): Record<string, string> => ({ WAYBILL_DATA_DIR: dir, LOG_LEVEL: process.env['CRASH_LOG_LEVEL'] ?? 'error', WAYBILL_RATE_LIMIT: '1000000' })

/**
 * One client: new order, then its completion, again and again, until the server stops
 * answering. Every request is recorded with its answer (or none).
 */
async function clientLoop(client: Client, prefix: string, sent: Sent[], t: { fail(message: string): void }): Promise<void> {
  for (let n = 0; ; n += 1) {
    const orderId = `${prefix}-${n}`
    for (const kind of ['add', 'complete'] as const) {
      const entry: Sent = { orderId, kind, body: kind === 'add' ? addBody(orderId) : completeBody(orderId), status: null }
      sent.push(entry)
      try {
        const answer = await client.post(entry.body)
        if (answer.status !== (kind === 'add' ? 201 : 202)) {
          // 503 while the store is busy is allowed; nothing else.
          if (answer.status !== 503) t.fail(`unexpected ${answer.status} for ${kind} ${orderId}: ${answer.text}`)
          return
        }
        entry.status = answer.status
      } catch {
        return
      }
    }
  }
}

t.test(`SIGKILL of serve (and its projector) under load, ${ROUNDS} rounds: acknowledged events stored exactly once, retries exact, stores sound, projector consistent`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-crash-'))
  t.teardown(async () => {
    await rm(dir, { recursive: true, force: true })
    await rm(`${dir}.subject-keys`, { recursive: true, force: true })
  })
  const sent: Sent[] = []
  let server: Served = await serve(env(dir))
  t.teardown(() => { server.child.kill('SIGKILL') })

  for (let round = 0; round < ROUNDS; round += 1) {
    const client = await clientFor(server.httpsUrl, dir)
    const loops = Array.from({ length: CLIENTS }, (_, c) => clientLoop(client, `r${round}-c${c}`, sent, t))
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1200))
    const killed = new Promise((resolve) => server.child.once('exit', resolve))
    // The in-process projector (serve's default) dies with it, mid-batch or not.
    server.child.kill('SIGKILL')
    await Promise.all([...loops, killed])
    await client.close()
    server = await serve(env(dir))

    // Every request that got no answer is retried as it was: it lands exactly once.
    const retry = await clientFor(server.httpsUrl, dir)
    for (const entry of sent.filter((e) => e.status === null)) {
      const answer = await retry.post(entry.body)
      t.equal(answer.status, entry.kind === 'add' ? 201 : 202, `retry of unanswered ${entry.kind} ${entry.orderId}${answer.status === 503 ? `: ${answer.text}` : ''}`)
      if (answer.status === 503 && process.env['CRASH_LOG_LEVEL'] !== undefined) console.error(server.output().slice(-4000))
      entry.status = answer.status
    }
    // Acknowledged ones too: an exact retry answers the original status and stores nothing.
    for (const entry of sent.filter((e) => e.status !== null).slice(-5)) {
      t.equal((await retry.post(entry.body)).status, entry.status, `exact retry of ${entry.kind} ${entry.orderId}`)
    }
    await retry.close()
  }
  t.equal(await server.stop(), 0)

  const acknowledged = sent.filter((e) => e.status !== null)
  t.ok(acknowledged.length >= ROUNDS * CLIENTS, `${acknowledged.length} events acknowledged under load`)
  t.equal(integrityCheck(join(dir, 'events.sqlite')), 'ok', 'events DB integrity_check')

  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') })
  t.teardown(() => store.close())
  const expected = new Map<string, Array<'OrderAdded' | 'OrderCompleted'>>()
  for (const entry of acknowledged) {
    const types = expected.get(entry.orderId) ?? []
    types.push(entry.kind === 'add' ? 'OrderAdded' : 'OrderCompleted')
    expected.set(entry.orderId, types)
  }
  let mismatched = 0
  for (const [orderId, types] of expected) {
    const events = await store.readStream(streamNameFor('sandbox', orderId))
    if (events.map((e) => e.type).join() !== types.join()) {
      mismatched += 1
      t.fail(`order ${orderId}: stored ${events.map((e) => e.type).join(',')}, expected ${types.join(',')}`)
    }
  }
  t.equal(mismatched, 0, 'every order stream holds exactly its acknowledged events, in order')
  const log = await allOrderEvents(store)
  t.equal(log.length, acknowledged.length, 'no event in the log beyond the acknowledged ones (no duplicate)')
  t.equal(new Set(log.map((e) => e.id)).size, log.length, 'event ids are unique')

  const keys = await openSqliteKeyStore({ dir: `${dir}.subject-keys` })
  t.teardown(() => keys.close())
  const projector = startProjector({ store, keys, dataDir: dir })
  const head = await store.headPosition()
  if (head !== null) await projector.waitFor(head, 30_000)
  await projector.stop()
  const readModel = new ReadModel(dir)
  t.teardown(() => readModel.close())
  const report = await verifyOrders({ store, keys, readModel })
  t.equal(report.mismatches.length, 0, 'read model rows equal a fold of their streams')
  t.equal(report.brokenChains.length, 0, 'hash chains hold')
  let rows = 0
  const wrongRows: string[] = []
  for (const row of readModel.allOrders()) {
    rows += 1
    const types = expected.get(row.order_id)
    const status = types?.length === 2 ? 'completed' : 'pending'
    if (row.event_count !== types?.length || row.revision !== types.length - 1 || row.status !== status) wrongRows.push(row.order_id)
  }
  t.same(wrongRows, [], 'every row counts each acknowledged event once (event_count, revision, status)')
  t.equal(rows, expected.size, 'one read-model row per order')
  t.equal(integrityCheck(currentGeneration(dir).path), 'ok', 'read model DB integrity_check')
})
