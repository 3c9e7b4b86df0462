import { canonicalJson } from '@waybill/domain'
import { categoryOf } from '../category.js'
import { StoreUnavailableError, WrongExpectedVersionError } from '../errors.js'
import { expectedRevisionHolds, reappendRevision, validateAppend } from '../append-rules.js'
import { chainedMetadata, hashEvent } from '../hash-chain.js'
import type {
  AppendOptions, AppendResult, CountOptions, EventData, EventStore, LogGaps, Position, ProjectionEvent, ProjectionReadOptions,
  ReadAllOptions, ReadStreamOptions, RecordedEvent, StoreInfo,
} from '../port.js'
import { DEFAULT_READ_ALL_MAX_COUNT } from '../port.js'

/** The in-memory adapter: the port and the abilities that make sense without a disk. */
export interface MemoryEventStore extends EventStore {
  onAppended(listener: (head: Position) => void): () => void
  readAllForProjection(options?: ProjectionReadOptions): Promise<ProjectionEvent[]>
  gaps(sample?: number): Promise<LogGaps>
  countAfter(options: CountOptions): Promise<number>
  categoryHead(category: string): Promise<Position | null>
  serverInfo(): Promise<StoreInfo>
}

export interface MemoryEventStoreOptions {
  /** Default maxCount of readAll. Default `DEFAULT_READ_ALL_MAX_COUNT`, as on every adapter. */
  readonly readAllBatchSize?: number
}

/**
 * An event store in this process's memory, for unit tests and for measuring the service
 * without a disk. It keeps the port's promises exactly as the SQLite adapter does (the shared
 * contract suite checks both): revisions from 0, gap-free positions from 1, the same
 * expected-revision and idempotency rules, the same hash chain. Data and metadata are stored as
 * canonical JSON and parsed on every read, so a caller can never change what was stored.
 * Nothing survives the process.
 */
export function openMemoryEventStore(options: MemoryEventStoreOptions = {}): MemoryEventStore {
  return new MemoryStore(options.readAllBatchSize ?? DEFAULT_READ_ALL_MAX_COUNT)
}

interface StoredEvent {
  readonly streamName: string
  readonly category: string
  readonly id: string
  readonly type: string
  readonly data: string
  readonly metadata: string
  readonly revision: number
  readonly position: bigint
  readonly hash: string
  readonly createdAt: number
}

class MemoryStore implements MemoryEventStore {
  /** The global log: the event at position p is `log[p - 1]`. */
  readonly #log: StoredEvent[] = []
  readonly #streams = new Map<string, StoredEvent[]>()
  readonly #byId = new Map<string, StoredEvent>()
  /** The position of each category's last event: `categoryHead` without a scan of the log. */
  readonly #categoryHeads = new Map<string, bigint>()
  readonly #listeners = new Set<(head: Position) => void>()
  readonly #readAllBatch: number
  #closed = false

  constructor(readAllBatch: number) {
    this.#readAllBatch = readAllBatch
  }

  async appendToStream(streamName: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any'
    validateAppend(streamName, events, expected)
    this.#open()
    const stream = this.#streams.get(streamName) ?? []
    const current = stream.length - 1
    const conflict = () => new WrongExpectedVersionError(streamName, expected, current < 0 ? 'no_stream' : current)
    const first = this.#byId.get(events[0].id)
    if (first !== undefined) {
      const start = first.revision
      const same = first.streamName === streamName && start === reappendRevision(expected, start) &&
        events.every((event, i) => stream[start + i]?.id === event.id)
      const last = stream[start + events.length - 1]
      if (!same || last === undefined) throw conflict()
      return { nextExpectedRevision: last.revision, position: positionOf(last.position) }
    }
    if (events.some((event) => this.#byId.has(event.id)) || !expectedRevisionHolds(expected, current)) throw conflict()

    const createdAt = Date.now()
    let previousHash = stream.at(-1)?.hash ?? null
    for (const event of events) {
      const revision = stream.length
      const metadata = chainedMetadata(event.metadata, previousHash)
      const hash = hashEvent({ streamName, revision, id: event.id, type: event.type, data: event.data, metadata })
      const stored: StoredEvent = {
        streamName, category: categoryOf(streamName), id: event.id, type: event.type,
        data: canonicalJson(event.data), metadata: canonicalJson(metadata),
        revision, position: BigInt(this.#log.length + 1), hash, createdAt,
      }
      this.#log.push(stored)
      stream.push(stored)
      this.#byId.set(event.id, stored)
      this.#categoryHeads.set(stored.category, stored.position)
      previousHash = hash
    }
    this.#streams.set(streamName, stream)
    const head = positionOf(BigInt(this.#log.length))
    for (const listener of this.#listeners) {
      try {
        listener(head)
      } catch {
        // A listener's failure is its own; the append has happened regardless.
      }
    }
    return { nextExpectedRevision: stream.length - 1, position: head }
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.#open()
    const from = options.fromRevision ?? 0
    const stream = this.#streams.get(streamName) ?? []
    const end = options.maxCount === undefined ? undefined : from + options.maxCount
    return stream.slice(from, end).map(recorded)
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.#select(options).map(recorded)
  }

  async readAllForProjection(options: ProjectionReadOptions = {}): Promise<ProjectionEvent[]> {
    const { followedBy } = options
    const followed = (event: StoredEvent): boolean => followedBy !== undefined && followedBy.of.includes(event.type) &&
      followedBy.next.includes(this.#streams.get(event.streamName)?.[event.revision + 1]?.type ?? '')
    return this.#select(options).map((event) => {
      const data = picked(JSON.parse(event.data) as Record<string, unknown>, options.dataKeys)
      return {
        streamName: event.streamName,
        id: event.id,
        type: event.type,
        data,
        ...(options.dataText === true ? { dataText: event.data } : {}),
        metadata: picked(JSON.parse(event.metadata) as Record<string, unknown>, options.metadataKeys),
        revision: event.revision,
        position: positionOf(event.position),
        ...(followedBy === undefined ? {} : { followed: followed(event) }),
      }
    })
  }

  async headPosition(): Promise<Position | null> {
    this.#open()
    return this.#log.length === 0 ? null : positionOf(BigInt(this.#log.length))
  }

  onAppended(listener: (head: Position) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Nothing can be deleted from memory behind the store's back: the log never has a gap. */
  async gaps(): Promise<LogGaps> {
    this.#open()
    return { missing: 0, firstMissing: [] }
  }

  async countAfter(options: CountOptions): Promise<number> {
    return this.#select({ after: options.after ?? null, maxCount: options.limit, ...(options.categories !== undefined ? { categories: options.categories } : {}) }).length
  }

  async categoryHead(category: string): Promise<Position | null> {
    this.#open()
    const last = this.#categoryHeads.get(category)
    return last === undefined ? null : positionOf(last)
  }

  async serverInfo(): Promise<StoreInfo> {
    this.#open()
    return { kind: 'memory', version: `Node.js ${process.version}`, location: 'this process' }
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#listeners.clear()
  }

  #select(options: ReadAllOptions): StoredEvent[] {
    this.#open()
    const maxCount = options.maxCount ?? this.#readAllBatch
    const categories = options.categories === undefined ? null : new Set(options.categories)
    const selected: StoredEvent[] = []
    // Positions are dense from 1, so the first event after `after` is at index `after`.
    for (let i = Number(options.after?.commit ?? 0n); selected.length < maxCount; i += 1) {
      const event = this.#log[i]
      if (event === undefined) break
      if (categories === null || categories.has(event.category)) selected.push(event)
    }
    return selected
  }

  #open(): void {
    if (this.#closed) throw new StoreUnavailableError('the event store is closed')
  }
}

function positionOf(position: bigint): Position {
  return { commit: position, prepare: position }
}

function recorded(event: StoredEvent): RecordedEvent {
  return {
    streamName: event.streamName,
    id: event.id,
    type: event.type,
    data: JSON.parse(event.data) as Record<string, unknown>,
    metadata: JSON.parse(event.metadata) as RecordedEvent['metadata'],
    revision: event.revision,
    position: positionOf(event.position),
    hash: event.hash,
    createdAt: new Date(event.createdAt),
  }
}

/** The members of `value` named by `keys` that it has; all of it when `keys` is undefined. */
function picked(value: Record<string, unknown>, keys: readonly string[] | undefined): Record<string, unknown> {
  return keys === undefined ? value : Object.fromEntries(keys.filter((key) => Object.hasOwn(value, key)).map((key) => [key, value[key]]))
}
