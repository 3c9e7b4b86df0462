import {
  eventIdFor, parseOrderStreamName, schemaVersionOf, STORED_EVENT_TYPE, upcastOrderEvent, type DecodedImage, type ImageMediaType,
  type PersonalOf, type WireEvent,
} from '@waybill/domain'
import { hashEvent, type RecordedEvent } from '@waybill/event-store'
import { openJson, orderSealer, personalContext, type OrderKey, type SealedBlob } from '@waybill/personal-data'
import type { LeafEvent } from '../../audit/leaf.js'

/** Marks, in an event's metadata, that `waybill seal` wrote it from a version-1 event (what its re-hash check opens back). */
export const SEALED_FROM = 'sealed_from_version'

const IMAGE_FIELDS = ['pod', 'signature'] as const
const WIRE_OF = new Map<string, WireEvent>(Object.entries(STORED_EVENT_TYPE).map(([wire, stored]) => [stored, wire as WireEvent]))

/** Whether a stored event is an order event written in plain form (schema version 1). */
export function isVersion1(event: Pick<RecordedEvent, 'streamName' | 'type' | 'metadata'>): boolean {
  return parseOrderStreamName(event.streamName) !== null && WIRE_OF.has(event.type) && schemaVersionOf(event) === 1
}

/** The sha256 of each image a version-1 event names (its blob's name then), with its media type. */
export function version1Images(event: RecordedEvent): Array<{ readonly sha256: string; readonly media_type: ImageMediaType }> {
  const found = []
  for (const field of IMAGE_FIELDS) {
    const ref = event.data[field] as { sha256?: unknown; media_type?: unknown } | undefined
    if (typeof ref?.sha256 === 'string') found.push({ sha256: ref.sha256, media_type: ref.media_type as ImageMediaType })
  }
  return found
}

/** A version-1 event sealed: its new data and id, and the sealed blobs of its images. */
export interface SealedEvent {
  readonly id: string
  readonly data: Record<string, unknown>
  readonly blobs: readonly SealedBlob[]
}

/**
 * Seals a version-1 order event as the ingress seals a delivery today (`toCommand` with the
 * order's `orderSealer`): the non-personal fields in the open, the personal ones sealed under the
 * order's key, each image a sealed blob, and the id the ingress would give it (a UUID v5 over the
 * sealed data). A courier's retry of the delivery after the seal therefore makes the same id and
 * is recognised as the same event. `images` holds the plain bytes of the images it names.
 */
export function sealVersion1(event: RecordedEvent, key: OrderKey, images: ReadonlyMap<string, Buffer>): SealedEvent {
  const name = parseOrderStreamName(event.streamName)
  const wire = WIRE_OF.get(event.type)
  if (name === null || wire === undefined) throw new TypeError(`${event.streamName} ${event.type} is not an order event`)
  const upcast = upcastOrderEvent({ id: event.id, type: event.type, data: event.data, metadata: event.metadata })
  const { personal, ...open } = (upcast as unknown as { data: { personal: { plain: Record<string, unknown> } } & Record<string, unknown> }).data
  const sealer = orderSealer(key, event.streamName)
  const decoded: DecodedImage[] = []
  for (const field of IMAGE_FIELDS) {
    const ref = open[field] as { blob: string; media_type: ImageMediaType } | undefined
    if (ref === undefined) continue
    const bytes = images.get(ref.blob)
    if (bytes === undefined) throw new Error(`image ${ref.blob} of ${event.streamName} revision ${event.revision} was not read`)
    const image = { sha256: ref.blob, media_type: ref.media_type, bytes }
    decoded.push(image)
    open[field] = sealer.image(image)
  }
  const data = { ...open, personal: sealer.personal(event.type as keyof PersonalOf, personal.plain as never) }
  return { id: eventIdFor(name.account, wire, data), data, blobs: sealer.blobs(decoded) }
}

/**
 * The version-1 form of an event `waybill seal` wrote, as the leaf of the tree it replaced
 * committed to (docs/audit.md#sealing): its personal part opened with the order's key and put
 * back beside the open fields, each image as `{sha256, media_type, bytes}`, and the id the
 * version-1 ingress gave it (a UUID v5 over that plain data). Throws SealBrokenError when the
 * sealed part does not open with the key.
 */
export function version1Form(event: RecordedEvent, key: OrderKey): LeafEvent {
  const name = parseOrderStreamName(event.streamName)
  const wire = WIRE_OF.get(event.type)
  if (name === null || wire === undefined) throw new TypeError(`${event.streamName} ${event.type} is not an order event`)
  const { personal, ...open } = event.data as { personal: { key: string; iv: string; box: string } } & Record<string, unknown>
  const plain = openJson(key, personalContext(event.streamName, event.type), personal)
  const data: Record<string, unknown> = { ...open }
  for (const [field, value] of Object.entries(plain)) {
    if (!(IMAGE_FIELDS as readonly string[]).includes(field)) data[field] = value
    else {
      const { blob: _blob, ...rest } = open[field] as { blob: string }
      data[field] = { ...rest, sha256: value }
    }
  }
  const { [SEALED_FROM]: _from, ...metadata } = event.metadata
  return { id: eventIdFor(name.account, wire, data), streamName: event.streamName, revision: event.revision, type: event.type, data,
    metadata: { ...metadata, schema_version: 1 } }
}

/** The stored event with new data, id and metadata, chained to `prevHash` and hashed as the store hashes it. */
export function rechained(event: RecordedEvent, change: { readonly id: string; readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>> }, prevHash: string | null): RecordedEvent {
  const next = { ...event, id: change.id, data: change.data, metadata: { ...change.metadata, prev_hash: prevHash } }
  return { ...next, hash: hashEvent(next) }
}
