import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import {
  hashesOf, inclusionProof, keyIdOf, leafHash, leafText, rawPublicKey, signTreeHead, toHex, treeRoot,
} from '@waybill/merkle'
import type { HistoryEvent, LogKey, OrderProof, SignedHead } from '../web/api.js'

/**
 * A small signed log made as the server makes one (docs/audit.md#leaves, docs/audit.md#signed-tree-heads), with the server's own code
 * (`@waybill/merkle`, node:crypto): leaves in the leaf format, RFC 9162 proofs, heads signed with
 * Ed25519. That code is checked against the RFC and the contract's texts in packages/merkle.
 */
export interface SignedLog {
  /** The log's key, as the key set serves it (the first and only key). */
  readonly key: LogKey
  readonly privateKey: KeyObject
  /**
   * The history the server would show for one order, and its proof against a head of `treeSize`
   * (null: no head signed yet). `projected`: how many leaves the projector has made; the events
   * past it have no leaf index yet. `timestamp`: the head's.
   */
  order(stream: string, treeSize?: number | null, options?: OrderOptions): { history: HistoryEvent[]; proof: OrderProof }
  head(treeSize: number, timestamp?: string): SignedHead
}

interface OrderOptions {
  readonly projected?: number
  readonly timestamp?: string
}

/** The heads' default time: a minute after the sample's last event was received. */
const HEAD_TIME = '2026-11-23T08:05:00.000Z'

export function signedLog(events: readonly HistoryEvent[]): SignedLog {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const leaves = events.map((event) => leafHash(leafText(event)))
  const head = (treeSize: number, timestamp = HEAD_TIME): SignedHead =>
    signTreeHead(privateKey, treeSize, toHex(treeRoot(hashesOf(leaves), treeSize)), new Date(timestamp))
  return {
    key: {
      algorithm: 'Ed25519', public_key: rawPublicKey(publicKey).toString('base64'),
      public_key_pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(), key_id: keyIdOf(publicKey),
      status: 'current', valid_from: null, valid_until: null, replaces: null,
    },
    privateKey,
    head,
    order: (stream, treeSize = events.length, { projected = events.length, timestamp = HEAD_TIME } = {}) => {
      // Each of the order's events with its place in the global log, the leaf index once projected.
      const mine = events.flatMap((event, n) => event.stream === stream ? [{ event, n, index: n < projected ? n : null }] : [])
      return {
        history: mine.map(({ event, index }) => ({ ...event, leaf_index: index })),
        proof: {
          head: treeSize === null ? null : head(treeSize, timestamp),
          next_cursor: null,
          entries: mine.map(({ event, n, index }) => ({
            event_id: event.event_id, revision: event.revision, leaf_index: index,
            leaf_hash: toHex(leaves[n]!),
            audit_path: index !== null && treeSize !== null && index < treeSize ? inclusionProof(hashesOf(leaves), index, treeSize).map(toHex) : null,
          })),
        },
      }
    },
  }
}

/** One order event as the history shows it, the `n`th of the global log (its ids and times follow from `n`). */
export function orderEvent(stream: string, revision: number, type: string, data: Record<string, unknown>, n: number): HistoryEvent {
  return {
    type, data, revision, stream, hash: `h${n}`, prev_hash: revision === 0 ? null : `h${n - 1}`,
    event_id: `00000000-0000-5000-8000-${String(n).padStart(12, '0')}`,
    event_date: typeof data['event_date'] === 'string' ? data['event_date'] : null,
    received_at: `2026-11-23T08:0${n}:00.000Z`, key_id: 'k1', request_id: `r${n}`,
    leaf_index: null, state_after: {},
  }
}

/** Order events of two orders, interleaved in the global log as they would be. */
export function sampleEvents(): HistoryEvent[] {
  const event = orderEvent
  return [
    event('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1', customer: 'Jane Doe', status: 'pending', event_date: '2026-11-23T08:00:00Z' }, 0),
    event('order-acme-B2', 0, 'OrderAdded', { order_id: 'B2', customer: 'Bo', status: 'pending', event_date: '2026-11-23T08:01:00Z' }, 1),
    event('order-acme-A1', 1, 'OrderUpdated', { order_id: 'A1', status: 'in_progress', event_date: '2026-11-23T08:02:00Z' }, 2),
    event('order-acme-A1', 2, 'OrderCompleted', {
      order_id: 'A1', recipient: 'Jane Doe', event_date: '2026-11-23T08:03:00Z',
      pod: { sha256: 'ab'.repeat(32), media_type: 'image/png', bytes: 68 },
    }, 3),
    event('order-acme-B2', 1, 'OrderCanceled', { order_id: 'B2', reason: 'moved', event_date: '2026-11-23T08:04:00Z' }, 4),
  ]
}
