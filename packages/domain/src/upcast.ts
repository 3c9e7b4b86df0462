import { isOrderEventType, SCHEMA_VERSION, type OrderEvent } from './events.js'

/** A stored order event as a fold reads it: its metadata says which schema version wrote it. */
export interface StoredOrderEvent {
  readonly id: string
  readonly type: string
  readonly data: unknown
  /** `schema_version` in it; an event without one was written by version 1. */
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** An event written by a newer Waybill than this one: folding it would guess at its meaning. */
export class NewerEventError extends Error {
  constructor(readonly eventId: string, readonly version: number, readonly current: number) {
    super(`event ${eventId} was written with schema version ${version}, newer than this Waybill's ${current}: upgrade Waybill`)
    this.name = 'NewerEventError'
  }
}

/** Takes an event of one schema version to the next. */
export type Upcaster = (event: { readonly type: string; readonly data: unknown }) => { readonly type: string; readonly data: unknown }

/**
 * How an event of each older schema version becomes one of the next version: `UPCASTERS[v - 1]`
 * takes version v to v + 1. The one place where the meaning of an old event is translated
 * (docs/design.md#event-versions); there is one version so far, so there is nothing to translate yet.
 */
const UPCASTERS: readonly Upcaster[] = []

/** The schema version a stored event was written with (1 when it says none). */
export function schemaVersionOf(event: Pick<StoredOrderEvent, 'metadata'>): number {
  const version = event.metadata?.schema_version
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 1 ? version : 1
}

/**
 * Reads stored events as events of version `current`, through `upcasters` (one per version step):
 * older versions are upcast, a newer one is refused (`NewerEventError`), and a type the domain does
 * not know is null (the caller passes over it).
 */
export function orderEventReader(upcasters: readonly Upcaster[], current: number) {
  return (stored: StoredOrderEvent): (OrderEvent & { readonly id: string }) | null => {
    const version = schemaVersionOf(stored)
    if (version > current) throw new NewerEventError(stored.id, version, current)
    // The usual case, a current event of a known type, is the stored event itself (no copy: a
    // rebuild folds a million of them).
    if (version === current) return isOrderEventType(stored.type) ? stored as unknown as OrderEvent & { readonly id: string } : null
    let event: { readonly type: string; readonly data: unknown } = stored
    for (let from = version; from < current; from += 1) event = (upcasters[from - 1] as Upcaster)(event)
    if (!isOrderEventType(event.type)) return null
    return { id: stored.id, type: event.type, data: event.data } as OrderEvent & { readonly id: string }
  }
}

/**
 * A stored event as this version's order event, for every fold of order events (the decider's,
 * the projector's, the history's, verify's and replay's): see `orderEventReader`.
 */
export const upcastOrderEvent = orderEventReader(UPCASTERS, SCHEMA_VERSION)
