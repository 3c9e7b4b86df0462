import type { EventData, ExpectedRevision } from './port.js'

/**
 * The rules every adapter applies to an append, in one place: whether the stream's current
 * revision (-1 for no stream) meets what the append expects, and where an idempotent re-append
 * must find its events. Both follow EventStoreDB.
 */
export function expectedRevisionHolds(expected: ExpectedRevision, current: number): boolean {
  if (expected === 'any') return true
  if (expected === 'no_stream') return current === -1
  if (expected === 'stream_exists') return current >= 0
  return current === expected
}

/**
 * The revision at which a re-append's first event must already stand to count as the same
 * append: right after what it expected (`no_stream` → 0, `n` → n + 1), or where it stands for
 * `any` and `stream_exists`.
 */
export function reappendRevision(expected: ExpectedRevision, storedRevision: number): number {
  if (expected === 'no_stream') return 0
  if (typeof expected === 'number') return expected + 1
  return storedRevision
}

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Checks the shape of an append request. Throws before anything is queued or written; after it,
 * `events` is known to hold at least one event.
 */
export function validateAppend(streamName: string, events: readonly EventData[], expected: ExpectedRevision): asserts events is readonly [EventData, ...EventData[]] {
  if (typeof streamName !== 'string' || streamName.length === 0) throw new TypeError('stream name must be a non-empty string')
  if (events.length === 0) throw new RangeError(`append to ${streamName}: no events`)
  const ids = new Set<string>()
  for (const event of events) {
    // EventStoreDB keeps ids as UUIDs and answers them lowercased: only that form round-trips
    // unchanged on every adapter, so that an id read back compares equal to the id appended.
    if (typeof event.id !== 'string' || !LOWERCASE_UUID.test(event.id)) {
      throw new TypeError(`event id must be a lowercase UUID, got ${JSON.stringify(event.id)}`)
    }
    if (ids.has(event.id)) throw new RangeError(`append to ${streamName}: event id ${event.id} appears twice`)
    ids.add(event.id)
    if (typeof event.type !== 'string' || event.type.length === 0) throw new TypeError('event type must be a non-empty string')
  }
  const validExpected = expected === 'no_stream' || expected === 'stream_exists' || expected === 'any' ||
    (typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0)
  if (!validExpected) throw new RangeError(`append to ${streamName}: bad expected revision ${String(expected)}`)
}
