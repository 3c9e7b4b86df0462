/**
 * The EventStore port. Its semantics are EventStoreDB's, so that switching adapters changes
 * nothing above it: revisions count from 0 per stream, every append states what it expects the
 * stream's revision to be, and the global log is read by position.
 *
 * Promises every adapter keeps (the contract suite and `waybill store check` test them):
 * - **Read your writes.** A read that starts after an append resolved sees that append, on any
 *   instance: a clustered store answers reads from its leader, never from a follower that may
 *   trail it.
 * - **Idempotency, per stream.** Event ids are lowercase UUIDs (anything else is a `TypeError`
 *   before anything is written), and an id stands at most once in a stream, whatever the
 *   expected revision. An append whose ids all stand already, consecutively, where its expected
 *   revision puts them (revision 0 for `no_stream`, `n + 1` for `n`, anywhere for `any` and
 *   `stream_exists`) resolves with the original result and writes nothing; an append any of
 *   whose ids stand anywhere else in the stream is a `WrongExpectedVersionError`. Ids in other
 *   streams are not looked at: the embedded stores happen to refuse them too, EventStoreDB
 *   cannot, so nothing above the port may rely on it.
 * - **Bounded calls.** No call waits on the store for ever: an append or read the store does not
 *   answer in time fails with `StoreUnavailableError` (nothing is acknowledged).
 * - **Close.** `close()` waits for the calls in flight to settle, then releases the store; every
 *   call after it fails with `StoreUnavailableError`.
 * - **Deleted streams.** No adapter deletes a stream. A stream deleted behind the store's back
 *   (an operator's tombstone or soft delete on EventStoreDB) answers `StreamDeletedError` to
 *   reads and appends, never events numbered from somewhere other than 0.
 */

/** `readAll`'s batch when no `maxCount` is given, the same on every adapter. */
export const DEFAULT_READ_ALL_MAX_COUNT = 1000

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

/** Event to append. `id` is a lowercase UUID chosen by the caller; re-appending the same ids is idempotent. */
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
  /** At most this many events; `DEFAULT_READ_ALL_MAX_COUNT` when absent. */
  readonly maxCount?: number
  /** Only streams whose category (the part before the first `-`) is one of these. */
  readonly categories?: readonly string[]
}

/**
 * What a projection folds: a logged event without its hash and creation time, and with only
 * the metadata it asks for. A `RecordedEvent` is one, so any store feeds a projection through
 * `readAll`; a store that can read less per event offers `readAllForProjection` as well.
 */
export interface ProjectionEvent {
  readonly streamName: string
  /** The event's id (the audit log's leaves commit to it). */
  readonly id: string
  readonly type: string
  /** The event's data; only the members asked for when the read named `dataKeys`. */
  readonly data: Readonly<Record<string, unknown>>
  /** The event's data as the store keeps it, its canonical JSON, when the read asked for it (`dataText`). */
  readonly dataText?: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly revision: number
  readonly position: Position
  /** Whether the next event of its stream is one of the types the read's `followedBy` named (only when it named some). */
  readonly followed?: boolean
}

/** Events of some types, marked by whether the next event of their stream is of others (`ProjectionReadOptions.followedBy`). */
export interface FollowedBy {
  /** The types of the events marked. Names are letters, digits and `_`. */
  readonly of: readonly string[]
  /** The types of the next event that mark them. */
  readonly next: readonly string[]
}

export interface ProjectionReadOptions extends ReadAllOptions {
  /**
   * Data members the projection reads: the events' `data` holds these (when present) and nothing
   * else; all of it when absent. Names are letters, digits and `_`.
   */
  readonly dataKeys?: readonly string[]
  /**
   * Also hand each event's data as its canonical JSON text (`dataText`), which the store keeps:
   * for a projection that needs those bytes (the audit log's leaves) and not the parsed value.
   */
  readonly dataText?: boolean
  /**
   * Metadata keys the projection reads. The events' `metadata` holds these (when present) and
   * nothing else; all of it when absent. Keys are letters, digits and `_`.
   */
  readonly metadataKeys?: readonly string[]
  /**
   * Marks each event of `followedBy.of` with whether the next event of its stream (revision + 1,
   * wherever it is in the log) is of `followedBy.next` (`followed`): a rebuild need not open what
   * the next event replaces. A store that cannot tell leaves `followed` out.
   */
  readonly followedBy?: FollowedBy
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

/** What `serverInfo` tells: which store this is, and which server version answers. */
export interface StoreInfo {
  /** `sqlite`, `memory` or `eventstoredb`. */
  readonly kind: string
  /** The server's or library's version, as it reports it. */
  readonly version: string
  /** Where it is, for an operator (a path, or a connection string with the password hidden). */
  readonly location: string
}

/** What `countAfter` is asked for. */
export interface CountOptions {
  /** Count events strictly after this position; from the beginning when absent. */
  readonly after?: Position | null
  readonly categories?: readonly string[]
  /** Stop counting here; the answer is then `limit` ("at least"). */
  readonly limit: number
}

/** The part of the port that runs a command: read a stream, append to it. */
export interface StreamStore {
  /**
   * Appends atomically, after checking `expectedRevision`. Resolves only once the events are
   * durable. Throws `WrongExpectedVersionError` when the check fails. Re-appending events whose
   * ids already stand at that place in the stream changes nothing and resolves as the first did;
   * an id that stands anywhere else in the stream is a `WrongExpectedVersionError` (see above).
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
  /** One batch of the global log in position order, at most `DEFAULT_READ_ALL_MAX_COUNT` unless told. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>
  /** Position of the last event in the global log, or null when it is empty. */
  headPosition(): Promise<Position | null>
  /** Waits for the calls in flight, then releases the store; later calls fail with `StoreUnavailableError`. */
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
  /** Which store and server version answer: for `waybill store check` and start-up logs. */
  serverInfo?(): Promise<StoreInfo>
  /**
   * How many events lie after a position, up to `limit`: the projector's lag in events where
   * positions are not event counts. Stores that can count without reading the events offer it.
   */
  countAfter?(options: CountOptions): Promise<number>
  /**
   * Position of the last event of a category (the part of the stream name before the first `-`),
   * or null when it has none, whichever process appended it: a change counter for a cache of that
   * category (the key ring's, docs/design.md#key-cache). Read your writes holds as for every read.
   * Stores that can answer it from an index offer it.
   */
  categoryHead?(category: string): Promise<Position | null>
  /**
   * Writes events exactly as a store of this kind recorded them (ids, revisions, metadata,
   * hashes, positions, creation times) after the log's last event: `waybill restore` fills an
   * empty store with it. Each must sit at the next position, the next revision of its stream,
   * chained to the hash before it and hashing to its own; the first that does not fails the call
   * with a RangeError, and nothing of the call is written. Stores whose positions are dense and
   * chosen by the store itself offer it.
   */
  importRecorded?(events: readonly RecordedEvent[]): Promise<void>
}
