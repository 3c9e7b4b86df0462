import type { AppendResult, EventData, ExpectedRevision } from '../port.js'

/** One `appendToStream` call on its way to the writer (plain data: it crosses a worker boundary). */
export interface AppendRequest {
  readonly streamName: string
  readonly events: readonly EventData[]
  readonly expectedRevision: ExpectedRevision
}

/** Why an append failed, as plain data; the store turns it back into an error class. */
export type AppendFailure =
  | { readonly kind: 'wrong_expected_version'; readonly actual: number | 'no_stream' }
  | { readonly kind: 'unavailable'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }

export type AppendOutcome =
  | { readonly ok: true; readonly result: AppendResult }
  | { readonly ok: false; readonly failure: AppendFailure }

/** Checks what SQLite cannot: the shape of the request. Throws before anything is queued. */
export function validateAppend(streamName: string, events: readonly EventData[], expected: ExpectedRevision): void {
  if (typeof streamName !== 'string' || streamName.length === 0) throw new TypeError('stream name must be a non-empty string')
  if (events.length === 0) throw new RangeError(`append to ${streamName}: no events`)
  const ids = new Set<string>()
  for (const event of events) {
    if (typeof event.id !== 'string' || event.id.length === 0) throw new TypeError('event id must be a non-empty string')
    if (ids.has(event.id)) throw new RangeError(`append to ${streamName}: event id ${event.id} appears twice`)
    ids.add(event.id)
    if (typeof event.type !== 'string' || event.type.length === 0) throw new TypeError('event type must be a non-empty string')
  }
  const validExpected = expected === 'no_stream' || expected === 'stream_exists' || expected === 'any' ||
    (typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0)
  if (!validExpected) throw new RangeError(`append to ${streamName}: bad expected revision ${String(expected)}`)
}
