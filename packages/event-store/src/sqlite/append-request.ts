import type { AppendResult, EventData, ExpectedRevision } from '../port.js'

/** One `appendToStream` call on its way to the writer (plain data: it crosses a worker boundary). */
export interface AppendRequest {
  readonly streamName: string
  /** At least one: the store refuses an empty append before queueing it (validateAppend). */
  readonly events: readonly [EventData, ...EventData[]]
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

/** The outcome of the `i`-th append of a batch: the committer answers one per append, in order. */
export function outcomeAt(outcomes: readonly AppendOutcome[], i: number): AppendOutcome {
  const outcome = outcomes[i]
  if (outcome === undefined) throw new RangeError(`a batch answered ${outcomes.length} appends, not ${i + 1} or more`)
  return outcome
}
