import { randomUUID } from 'node:crypto'
import t from 'tap'
import { StoreUnavailableError, StreamDeletedError, WrongExpectedVersionError } from '../../src/errors.js'
import { eventStoreOn } from '../../src/eventstoredb/store.js'
import { DEFAULT_READ_ALL_MAX_COUNT } from '../../src/port.js'
import { ScriptedServer } from './scripted-server.js'

// What a live cluster does that the shared contract does not provoke, played by the scripted
// server in the client's own shapes and error classes (scripted-server.ts).
const open = (server: ScriptedServer, readTimeoutMs = 2_000): ReturnType<typeof eventStoreOn> =>
  eventStoreOn(server.client(), { readTimeoutMs, location: 'scripted' })
const event = (type = 'Happened'): { id: string; type: string; data: Record<string, unknown> } => ({ id: randomUUID(), type, data: { n: 1 } })

t.test('identical appends racing one that is not yet replicated all succeed (IdempotentNotReady)', async (t) => {
  const server = new ScriptedServer()
  const store = open(server)
  await store.appendToStream('order-acme-1', [event()], { expectedRevision: 'no_stream' })
  server.replicationMs = 300
  const retried = event('OrderUpdated')
  const [first, second] = await Promise.all([
    store.appendToStream('order-acme-1', [retried], { expectedRevision: 0 }),
    store.appendToStream('order-acme-1', [retried], { expectedRevision: 0 }),
  ])
  t.same(second, first, 'the dropped duplicate answers as the append that landed')
  t.equal((await store.readStream('order-acme-1')).length, 2, 'written once')
})

t.test('every read goes to the leader: a trailing follower never answers', async (t) => {
  const server = new ScriptedServer()
  server.followerLag = 1
  const store = open(server)
  const appended = event()
  await store.appendToStream('apikey-k1', [appended], { expectedRevision: 'no_stream' })
  t.same((await store.readStream('apikey-k1')).map((e) => e.id), [appended.id], 'read-after-write holds')
  t.ok((await store.headPosition()) !== null, 'the head is the leader\'s')
  const reads = server.calls.filter((call) => call.method === 'readStream' || call.method === 'readAll' || call.method === 'getStreamMetadata')
  t.ok(reads.length > 0 && reads.every((call) => call.options.requiresLeader === true), 'requiresLeader on every read')
})

t.test('close waits for appends in flight; calls after it fail as an outage', async (t) => {
  const server = new ScriptedServer()
  const store = open(server)
  server.replicationMs = 100
  const inFlight = store.appendToStream('order-acme-2', [event()], { expectedRevision: 'no_stream' })
  await new Promise((resolve) => setTimeout(resolve, 10))
  await store.close()
  t.equal((await inFlight).nextExpectedRevision, 0, 'the append in flight finished, not cut by dispose')
  await t.rejects(store.readStream('order-acme-2'), StoreUnavailableError)
  await t.rejects(store.appendToStream('order-acme-2', [event()]), StoreUnavailableError)
  await t.rejects(store.headPosition(), StoreUnavailableError)
})

t.test('a tombstoned stream and a soft-deleted one are the port\'s StreamDeletedError', async (t) => {
  const server = new ScriptedServer()
  const store = open(server)
  await store.appendToStream('order-acme-3', [event()], { expectedRevision: 'no_stream' })
  server.tombstoned.add('order-acme-3')
  await t.rejects(store.readStream('order-acme-3'), StreamDeletedError, 'read of a tombstoned stream')
  await t.rejects(store.appendToStream('order-acme-3', [event()]), StreamDeletedError, 'append to a tombstoned stream')
  await store.appendToStream('order-acme-4', [event(), event()], { expectedRevision: 'no_stream' })
  server.softDelete('order-acme-4')
  t.same(await store.readStream('order-acme-4'), [], 'a soft-deleted stream reads empty')
  await t.rejects(store.appendToStream('order-acme-4', [event()], { expectedRevision: 'no_stream' }), StreamDeletedError,
    'no_stream on a soft-deleted stream is refused, not numbered from revision 2')
  t.equal(server.streams.get('order-acme-4')?.length, 2, 'nothing was written')
})

t.test('a read the server never answers fails within the read deadline', async (t) => {
  const server = new ScriptedServer()
  const store = open(server, 300)
  server.hangReads = true
  const started = Date.now()
  await t.rejects(store.readStream('apikey-k2'), StoreUnavailableError, 'the key read behind authentication')
  await t.rejects(store.headPosition(), StoreUnavailableError, 'the head read behind /readyz')
  t.ok(Date.now() - started < 2_000, `bounded: ${Date.now() - started} ms`)
})

t.test('readAll without maxCount reads one default batch, as on SQLite', async (t) => {
  const server = new ScriptedServer()
  const store = open(server)
  for (let i = 0; i < DEFAULT_READ_ALL_MAX_COUNT + 5; i += 1) await store.appendToStream(`c-${i}`, [event()], { expectedRevision: 'no_stream' })
  t.equal((await store.readAll()).length, DEFAULT_READ_ALL_MAX_COUNT)
  t.equal(await store.countAfter({ limit: 10_000 }), DEFAULT_READ_ALL_MAX_COUNT + 5, 'countAfter counts events, whatever positions are')
})

t.test('a conflict reported as an unsuccessful result (throwOnAppendFailure=false) is still a conflict', async (t) => {
  const server = new ScriptedServer()
  server.throwOnAppendFailure = false
  const store = open(server)
  await store.appendToStream('order-acme-5', [event()], { expectedRevision: 'no_stream' })
  // Another writer slips in between the adapter's read and its append.
  const original = server.client().appendToStream.bind(server.client())
  let once = true
  const client = server.client() as unknown as { appendToStream: typeof original }
  const racing = eventStoreOn(Object.assign(client, {
    appendToStream: async (...args: Parameters<typeof original>) => {
      if (once) { once = false; await store.appendToStream('order-acme-5', [event()], { expectedRevision: 0 }) }
      return original(...args)
    },
  }) as never, { readTimeoutMs: 2_000, location: 'scripted' })
  const error = await racing.appendToStream('order-acme-5', [event()], { expectedRevision: 0 }).catch((caught: unknown) => caught)
  t.type(error, WrongExpectedVersionError)
  t.equal((error as WrongExpectedVersionError).actual, 1)
  t.equal(server.streams.get('order-acme-5')?.length, 2, 'the losing append wrote nothing')
})

t.test('the server version is read at connect and old servers are refused', async (t) => {
  const server = new ScriptedServer()
  t.match((await open(server).serverInfo()).version, /EventStoreDB 24\.10/)
})
