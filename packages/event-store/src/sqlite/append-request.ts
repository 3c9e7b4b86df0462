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
