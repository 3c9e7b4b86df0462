import type { Decider } from '@waybill/domain'
import { WrongExpectedVersionError } from './errors.js'
import type { Position, StreamStore } from './port.js'
import type { KnownState, StreamStates } from './stream-states.js'

export interface HandleCommandOptions {
  /** Metadata stored with every appended event (the store adds `prev_hash`). */
  readonly metadata: Readonly<Record<string, unknown>>
  /** Read-decide-append rounds before giving up on a contended stream. Default 5. */
  readonly maxAttempts?: number
}

export type CommandResult<Event, ErrorCode extends string> =
  | {
    readonly outcome: 'appended'
    readonly events: ReadonlyArray<Event & { readonly id: string }>
    /** Position of the last event appended (or already present, if an identical append won a race). */
    readonly position: Position
    readonly nextExpectedRevision: number
  }
  | { readonly outcome: 'already_applied' }
  | { readonly outcome: 'rejected'; readonly error: ErrorCode }

const DEFAULT_MAX_ATTEMPTS = 5

/**
 * Runs one command against one stream: read it, fold it with `evolve`, `decide`, and append what
 * was decided with the revision read as the expected revision. When another writer got there
 * first (WrongExpectedVersionError), read and decide again, up to `maxAttempts` rounds; after
 * that the last WrongExpectedVersionError is thrown. StoreUnavailableError passes through.
 *
 * With `states`, the first round may skip the read: it decides on the state the cache holds
 * (or, for a stream it does not know, on the initial state, as for a new order). Such a guess is
 * only ever acted on by an append, with the guessed revision as the expected revision, so the
 * store refuses it if the stream is anywhere else; the round then does not count, the guess is
 * dropped, and the stream is read. A decision on a guess that appends nothing (a rejection, an
 * exact retry) is not answered either: it is made again on a fresh read.
 */
export async function handleCommand<Command, Event extends { readonly type: string; readonly data: unknown }, State, ErrorCode extends string>(
  store: StreamStore,
  streamName: string,
  decider: Decider<Command, Event, State, ErrorCode>,
  command: Command,
  options: HandleCommandOptions,
  states?: StreamStates<State>,
): Promise<CommandResult<Event, ErrorCode>> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)
  let guess = states === undefined ? undefined : states.get(streamName) ?? { state: decider.initialState(), revision: 'no_stream' as const }
  for (let attempt = 1; ; ) {
    const guessed = guess !== undefined
    const known = guess ?? await readState(store, streamName, decider)
    guess = undefined
    const decision = decider.decide(command, known.state)
    if (decision.outcome !== 'append') {
      if (guessed) continue
      states?.set(streamName, known)
      return decision
    }
    try {
      const result = await store.appendToStream(
        streamName,
        decision.events.map((event) => ({
          id: event.id,
          type: event.type,
          data: event.data as Record<string, unknown>,
          metadata: options.metadata,
        })),
        { expectedRevision: known.revision },
      )
      states?.set(streamName, { state: decision.events.reduce((state, event) => decider.evolve(state, event), known.state), revision: result.nextExpectedRevision })
      return { outcome: 'appended', events: decision.events, position: result.position, nextExpectedRevision: result.nextExpectedRevision }
    } catch (error) {
      states?.delete(streamName)
      if (guessed && error instanceof WrongExpectedVersionError) continue
      // The conflict of the last round allowed is the answer.
      if (!(error instanceof WrongExpectedVersionError) || attempt >= maxAttempts) throw error
      attempt += 1
    }
  }
}

async function readState<Command, Event extends { readonly type: string; readonly data: unknown }, State, ErrorCode extends string>(
  store: StreamStore, streamName: string, decider: Decider<Command, Event, State, ErrorCode>,
): Promise<KnownState<State>> {
  const recorded = await store.readStream(streamName)
  let state = decider.initialState()
  for (const event of recorded) {
    // As stored, metadata included: a decider may read the schema version an event was written with.
    state = decider.evolve(state, { type: event.type, data: event.data, metadata: event.metadata, id: event.id } as unknown as Event & { readonly id: string })
  }
  const last = recorded.at(-1)
  return { state, revision: last === undefined ? 'no_stream' : last.revision }
}
