import { hash } from 'node:crypto'
import { canonicalJson } from '@waybill/domain'
import type { RecordedEvent } from './port.js'

/** What an event's hash covers: everything that identifies it and its place, nothing the store decides later. */
export interface HashedEventFields {
  readonly streamName: string
  readonly revision: number
  readonly id: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  /** Includes `prev_hash`, which is what chains the stream. */
  readonly metadata: Readonly<Record<string, unknown>>
}

/** sha256 (hex) over the canonical JSON of `{stream, revision, id, type, data, metadata}`. */
export function hashEvent(event: HashedEventFields): string {
  // Keys in canonical order, so that canonicalJson can hand a value whose members are in
  // order too straight to JSON.stringify.
  const canonical = canonicalJson({
    data: event.data,
    id: event.id,
    metadata: event.metadata,
    revision: event.revision,
    stream: event.streamName,
    type: event.type,
  })
  return hash('sha256', canonical, 'hex')
}

/**
 * The metadata an event is stored with: the appended metadata and `prev_hash`, the hash of the
 * stream's event before it (null for the first). As `{ ...metadata, prev_hash }`, but with
 * `prev_hash` put in its sorted place, so that metadata written with its keys in order stays in
 * order and canonicalJson takes its JSON.stringify path for it and for the hash around it.
 */
export function chainedMetadata(metadata: Readonly<Record<string, unknown>> | undefined, previousHash: string | null): Record<string, unknown> {
  const chained: Record<string, unknown> = {}
  let placed = false
  for (const key of metadata === undefined ? [] : Object.keys(metadata)) {
    if (!placed && key > 'prev_hash') {
      chained.prev_hash = previousHash
      placed = true
    }
    if (key !== 'prev_hash') chained[key] = metadata?.[key]
  }
  if (!placed) chained.prev_hash = previousHash
  return chained
}

export type ChainVerdict = { readonly ok: true } | { readonly ok: false; readonly revision: number; readonly reason: string }

/**
 * Checks one stream, read in revision order from revision 0 (or a run of it that follows
 * `before`, the event just before it): revisions are consecutive, each event's `prev_hash` is the
 * hash of the one before (null for the first of the stream), and each stored hash is what the
 * event's content hashes to. Reports the first revision that breaks the chain.
 */
export function verifyStreamChain(events: readonly RecordedEvent[], before: RecordedEvent | null = null): ChainVerdict {
  let previousHash: string | null = before?.hash ?? null
  const first = before === null ? 0 : before.revision + 1
  for (const [index, event] of events.entries()) {
    if (event.revision !== first + index) {
      return { ok: false, revision: event.revision, reason: `expected revision ${first + index}, found ${event.revision}` }
    }
    if (event.streamName !== (before ?? events[0])?.streamName) {
      return { ok: false, revision: event.revision, reason: `event belongs to stream ${event.streamName}` }
    }
    if (event.metadata.prev_hash !== previousHash) {
      return { ok: false, revision: event.revision, reason: 'prev_hash does not match the previous event' }
    }
    const recomputed = hashEvent(event)
    if (recomputed !== event.hash) {
      return { ok: false, revision: event.revision, reason: 'content does not match its hash' }
    }
    previousHash = event.hash
  }
  return { ok: true }
}
