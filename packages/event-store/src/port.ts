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

/**
 * What a projection folds: a logged event without its id, hash and creation time, and with only
 * the metadata it asks for. A `RecordedEvent` is one, so any store feeds a projection through
 * `readAll`; a store that can read less per event offers `readAllForProjection` as well.
 */
export interface ProjectionEvent {
  readonly streamName: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: Readonly<Record<string, unknown>>
  readonly revision: number
  readonly position: Position
}

export interface ProjectionReadOptions extends ReadAllOptions {
  /**
   * Metadata keys the projection reads. The events' `metadata` holds these (when present) and
   * nothing else; all of it when absent. Keys are letters, digits and `_`.
   */
  readonly metadataKeys?: readonly string[]
}

/** What `gaps` found: how many positions below the head hold no event, and where gaps start. */
export interface LogGaps {
  readonly missing: number
  /** The first position of each gap, in order, at most the sample asked for. */
  readonly firstMissing: readonly bigint[]
}

/** What group commit has done since the store opened: for the benchmark and /metrics. */
export interface WriteStats {
  /** Append requests the writer settled (appended, idempotent, or failed). */
  readonly appends: number
  /** Transactions committed or attempted: one fsync each. */
  readonly batches: number
  /** Histogram of appends per transaction: [size, number of transactions], by size. */
  readonly batchSizeCounts: ReadonlyArray<readonly [size: number, count: number]>
  readonly maxBatchSize: number
}

/** The part of the port that runs a command: read a stream, append to it. */
export interface StreamStore {
  /**
   * Appends atomically, after checking `expectedRevision`. Resolves only once the events are
   * durable. Throws `WrongExpectedVersionError` when the check fails. Re-appending events whose
   * ids already stand at that place in the stream changes nothing and resolves as the first did.
   */
  appendToStream(streamName: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>
  /** Events of one stream in revision order; an empty array when the stream does not exist. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>
}

/**
 * The event store. The required members are what every adapter can do; the optional ones are
 * abilities some adapters have, typed here so that callers ask `store.gaps !== undefined`
 * instead of guessing from the object's shape.
 */
export interface EventStore extends StreamStore {
  /** One batch of the global log in position order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>
  /** Position of the last event in the global log, or null when it is empty. */
  headPosition(): Promise<Position | null>
  close(): Promise<void>

  /**
   * Change notification: calls `listener` after appends made through this store object (other
   * processes' appends are not seen: poll for those). Returns an unsubscribe function.
   */
  onAppended?(listener: () => void): () => void
  /** The same events, order and batching as `readAll`, decoded only as far as a projection needs. */
  readAllForProjection?(options?: ProjectionReadOptions): Promise<ProjectionEvent[]>
  /** Group-commit figures since the store opened. */
  stats?(): WriteStats
  /**
   * Audits the global log for positions with no event, where positions are dense (the embedded
   * store): a gap is an event deleted behind the store's back. Events cut from the very end of
   * the log leave no gap and cannot be seen here.
   */
  gaps?(sample?: number): Promise<LogGaps>
}
