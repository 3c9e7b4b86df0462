import { isOrderEventType, SCHEMA_VERSION, type OrderEvent } from './events.js'
import { PERSONAL_FIELDS } from './personal.js'

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

const IMAGE_FIELDS = new Set(['pod', 'signature'])

/**
 * Version 1 to 2: the personal fields, stored in plain form, move into `personal.plain`; an image
 * reference `{sha256, media_type, bytes}` stays outside as `{blob: sha256, …}` (its blob holds the
 * plain bytes under their own sha256) and its sha256 goes into the personal part, as version 2
 * keeps it. What such an event holds in plain form stays there until `waybill seal` seals it
 * (docs/design.md#personal-data).
 */
export const fromVersion1: Upcaster = (event) => {
  if (!Object.hasOwn(PERSONAL_FIELDS, event.type) || typeof event.data !== 'object' || event.data === null) return event
  const personalFields: readonly string[] = PERSONAL_FIELDS[event.type as keyof typeof PERSONAL_FIELDS]
  const open: Record<string, unknown> = {}
  const plain: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(event.data)) {
    if (!personalFields.includes(name)) open[name] = value
    else if (!IMAGE_FIELDS.has(name)) plain[name] = value
    else {
      const { sha256, ...rest } = value as { sha256: string }
      open[name] = { blob: sha256, ...rest }
      plain[name] = sha256
    }
  }
  return { type: event.type, data: { ...open, personal: { plain } } }
}

/**
 * How an event of each older schema version becomes one of the next version: `UPCASTERS[v - 1]`
 * takes version v to v + 1. The one place where the meaning of an old event is translated
 * (docs/design.md#event-versions).
 */
const UPCASTERS: readonly Upcaster[] = [fromVersion1]

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
