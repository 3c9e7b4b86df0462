import t from 'tap'
import type { AllStreamRecordedEvent } from '@eventstore/db-client'
import { hashEvent, verifyStreamChain } from '../../src/hash-chain.js'
import type { EventData } from '../../src/port.js'
import { chainEvents } from '../../src/eventstoredb/chain.js'
import { HASH_KEY, fromClientEvent, toClientEvent } from '../../src/eventstoredb/event-codec.js'
import type { ChainedEvent } from '../../src/eventstoredb/event-codec.js'

const STREAM = 'order-acme-42'
const batch: EventData[] = [
  { id: '6f1c1d7e-4a0c-5b7e-9a51-0d1f7f2b7a01', type: 'OrderAdded', data: { order_id: '42', status: 'pending', event_date: '2024-05-01T10:00:00Z' }, metadata: { key_id: 'k1', request_id: 'r1' } },
  { id: '6f1c1d7e-4a0c-5b7e-9a51-0d1f7f2b7a02', type: 'OrderUpdated', data: { order_id: '42', status: 'in_progress', nested: { b: 2, a: [1, 'x'] } }, metadata: { key_id: 'k1' } },
  { id: '6f1c1d7e-4a0c-5b7e-9a51-0d1f7f2b7a03', type: 'OrderCompleted', data: { order_id: '42', when: new Date('2024-05-02T00:00:00Z') } },
]

// What the server hands back for an event written with `toClientEvent`: the same id, type and
// JSON, plus what the server adds (stream, revision, creation time, position).
function asStored(chained: ChainedEvent, revision: number): AllStreamRecordedEvent {
  const sent = toClientEvent(chained)
  return {
    streamId: STREAM,
    id: sent.id,
    isJson: true,
    revision: BigInt(revision),
    type: sent.type,
    created: new Date('2024-05-03T00:00:00Z'),
    // JSON over the wire: the server stores bytes and the client parses them back.
    data: JSON.parse(JSON.stringify(sent.data)) as Record<string, unknown>,
    metadata: JSON.parse(JSON.stringify(sent.metadata)) as Record<string, unknown>,
    position: { commit: BigInt(1000 + revision), prepare: BigInt(1000 + revision) },
  }
}

t.test('an event goes out as JSON with its deterministic id, its data, and chain metadata', async (t) => {
  const [first] = chainEvents(STREAM, 0, null, batch)
  const sent = toClientEvent(first!)
  t.equal(sent.id, batch[0]!.id, 'the caller\'s id, so the server\'s idempotency sees a retry')
  t.equal(sent.contentType, 'application/json')
  t.equal(sent.type, 'OrderAdded')
  t.same(sent.data, batch[0]!.data)
  t.same(sent.metadata, { key_id: 'k1', request_id: 'r1', prev_hash: null, [HASH_KEY]: first!.hash })
})

t.test('a written chain reads back as the port\'s events and verifies', async (t) => {
  const chained = chainEvents(STREAM, 0, null, batch)
  const read = chained.map((c, revision) => fromClientEvent(asStored(c, revision)))
  t.same(read.map((e) => e.revision), [0, 1, 2])
  t.same(read.map((e) => e.id), batch.map((e) => e.id))
  t.same(read[0]!.metadata, { key_id: 'k1', request_id: 'r1', prev_hash: null }, 'the stored hash is not part of the metadata')
  t.equal(read[1]!.metadata.prev_hash, read[0]!.hash)
  t.equal(read[2]!.metadata.prev_hash, read[1]!.hash)
  t.equal(read[2]!.data.when, '2024-05-02T00:00:00.000Z', 'data is what JSON makes of it')
  t.same(read[1]!.position, { commit: 1001n, prepare: 1001n })
  t.equal(read[0]!.createdAt.toISOString(), '2024-05-03T00:00:00.000Z')
  for (const event of read) t.equal(hashEvent(event), event.hash, `hash of revision ${event.revision} recomputes`)
  t.same(verifyStreamChain(read), { ok: true })
})

t.test('a batch appended after revision 4 links to that event\'s hash', async (t) => {
  const chained = chainEvents(STREAM, 5, 'ab'.repeat(32), batch.slice(0, 1))
  t.equal(chained[0]!.prevHash, 'ab'.repeat(32))
  const read = fromClientEvent(asStored(chained[0]!, 5))
  t.equal(read.metadata.prev_hash, 'ab'.repeat(32))
  t.equal(hashEvent(read), read.hash)
})

t.test('tampered data no longer matches its hash', async (t) => {
  const chained = chainEvents(STREAM, 0, null, batch)
  const stored = chained.map((c, revision) => asStored(c, revision))
  ;(stored[1]!.data as Record<string, unknown>).status = 'pending'
  const verdict = verifyStreamChain(stored.map((s) => fromClientEvent(s)))
  t.same(verdict, { ok: false, revision: 1, reason: 'content does not match its hash' })
})

t.test('a caller cannot smuggle its own stored hash in through metadata', async (t) => {
  const [chained] = chainEvents(STREAM, 0, null, [{ ...batch[0]!, metadata: { [HASH_KEY]: 'forged', key_id: 'k1' } }])
  t.not(chained!.hash, 'forged')
  t.equal((toClientEvent(chained!).metadata as Record<string, unknown>)[HASH_KEY], chained!.hash)
})

t.test('events Waybill did not write are refused with the stream and revision named', async (t) => {
  const [chained] = chainEvents(STREAM, 0, null, batch)
  const good = asStored(chained!, 0)
  t.throws(() => fromClientEvent({ ...good, isJson: false, data: new Uint8Array([1]) } as unknown as AllStreamRecordedEvent), /order-acme-42@0 is not JSON/)
  t.throws(() => fromClientEvent({ ...good, metadata: { key_id: 'k1' } }), /no hash chain metadata/)
  t.throws(() => fromClientEvent({ ...good, metadata: undefined }), /no hash chain metadata/)
  t.throws(() => fromClientEvent({ ...good, data: [1, 2] } as unknown as AllStreamRecordedEvent), /not a JSON object/)
  t.throws(() => fromClientEvent({ ...good, metadata: { prev_hash: 7, [HASH_KEY]: 'x' } }), /malformed prev_hash/)
  const { position: _dropped, ...withoutPosition } = good
  t.throws(() => fromClientEvent(withoutPosition), /without a position/)
})
