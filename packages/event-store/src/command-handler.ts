import type { Decider } from '@waybill/domain'
import { WrongExpectedVersionError } from './errors.js'
import type { Position, StreamStore } from './port.js'

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
 */
export async function handleCommand<Command, Event extends { readonly type: string; readonly data: unknown }, State, ErrorCode extends string>(
  store: StreamStore,
  streamName: string,
  decider: Decider<Command, Event, State, ErrorCode>,
  command: Command,
  options: HandleCommandOptions,
): Promise<CommandResult<Event, ErrorCode>> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)
  for (let attempt = 1; ; attempt += 1) {
    const recorded = await store.readStream(streamName)
    let state = decider.initialState()
    for (const event of recorded) {
      state = decider.evolve(state, { type: event.type, data: event.data, id: event.id } as unknown as Event & { readonly id: string })
    }
    const decision = decider.decide(command, state)
    if (decision.outcome !== 'append') return decision
    const last = recorded.at(-1)
    try {
      const result = await store.appendToStream(
        streamName,
        decision.events.map((event) => ({
          id: event.id,
          type: event.type,
          data: event.data as Record<string, unknown>,
          metadata: options.metadata,
        })),
        { expectedRevision: last === undefined ? 'no_stream' : last.revision },
      )
      return { outcome: 'appended', events: decision.events, position: result.position, nextExpectedRevision: result.nextExpectedRevision }
    } catch (error) {
      // The conflict of the last round allowed is the answer.
      if (!(error instanceof WrongExpectedVersionError) || attempt >= maxAttempts) throw error
    }
  }
}
