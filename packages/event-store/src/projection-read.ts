import type { EventStore, Position, ReadAllOptions } from './port.js'

/**
 * What a projection folds: a logged event without its id, hash and creation time, and with only
 * the metadata it asks for. A `RecordedEvent` is one, so any store can feed a projection through
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

/**
 * An optional capability beside the port, for rebuilds and projectors that read the whole log:
 * the same events, order and batching as `readAll`, decoded only as far as a projection needs.
 */
export interface ProjectionReader {
  readAllForProjection(options?: ProjectionReadOptions): Promise<ProjectionEvent[]>
}

/** Whether `store` offers `readAllForProjection` (the SQLite adapter does). */
export function canReadForProjection(store: EventStore): store is EventStore & ProjectionReader {
  return typeof (store as Partial<ProjectionReader>).readAllForProjection === 'function'
}
