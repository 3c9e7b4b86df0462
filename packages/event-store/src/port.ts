/**
 * The EventStore port. Its semantics are EventStoreDB's, so that switching adapters changes
 * nothing above it: revisions count from 0 per stream, every append states what it expects the
 * stream's revision to be, and the global log is read by position.
 */

/** Where an event sits in the global log. SQLite uses commit = prepare = a gap-free sequence. */
export interface Position {
  readonly commit: bigint
  readonly prepare: bigint
}

/**
 * What the caller expects of the stream before the append:
 * - `no_stream`: the stream must not exist;
 * - `stream_exists`: it must exist;
 * - `any`: no check;
 * - a number: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number

/** Event to append. `id` is a UUID chosen by the caller; re-appending the same ids is idempotent. */
export interface EventData {
  readonly id: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** An event as stored. `metadata.prev_hash` is the hash of the event before it in its stream. */
export interface RecordedEvent {
  readonly streamName: string
  readonly id: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: Readonly<Record<string, unknown>> & { readonly prev_hash: string | null }
  readonly revision: number
  readonly position: Position
  /** sha256 (hex) over this event's canonical form, which includes `metadata.prev_hash`. */
  readonly hash: string
  readonly createdAt: Date
}

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  readonly nextExpectedRevision: number
  /** Position of the last event written (or already present, for an idempotent re-append). */
  readonly position: Position
}

export interface AppendOptions {
  /** Defaults to `any`. */
  readonly expectedRevision?: ExpectedRevision
}

export interface ReadStreamOptions {
  readonly fromRevision?: number
  readonly maxCount?: number
}

export interface ReadAllOptions {
  /** Read events strictly after this position; from the beginning when absent. */
  readonly after?: Position | null
  readonly maxCount?: number
  /** Only streams whose category (the part before the first `-`) is one of these. */
  readonly categories?: readonly string[]
}

export interface EventStore {
  /**
   * Appends atomically, after checking `expectedRevision`. Resolves only once the events are
   * durable. Throws `WrongExpectedVersionError` when the check fails. Re-appending events whose
   * ids already stand at that place in the stream changes nothing and resolves as the first did.
   */
  appendToStream(streamName: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>
  /** Events of one stream in revision order; an empty array when the stream does not exist. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>
  /** One batch of the global log in position order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>
  /** Position of the last event in the global log, or null when it is empty. */
  headPosition(): Promise<Position | null>
  close(): Promise<void>
}
