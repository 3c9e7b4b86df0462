/**
 * The generic shape of an event-sourced decider (emmett's `decide`/`evolve`/`initialState`):
 * the command handler in `@waybill/event-store` folds a stream with `evolve`, asks `decide`,
 * and appends what it returns.
 */
export interface Decider<Command, Event extends { readonly type: string }, State, ErrorCode extends string> {
  initialState(): State
  /** Folds one stored event (with its id) into the state. */
  evolve(state: State, event: Event & { readonly id: string }): State
  decide(command: Command, state: State): Decision<Event, ErrorCode>
}

export type Decision<Event, ErrorCode extends string> =
  /** Append these events (each carries the deterministic id the store keys idempotency on). */
  | { readonly outcome: 'append'; readonly events: ReadonlyArray<Event & { readonly id: string }> }
  /** The same event is already in the stream: answer the original success, append nothing. */
  | { readonly outcome: 'already_applied' }
  | { readonly outcome: 'rejected'; readonly error: ErrorCode }
