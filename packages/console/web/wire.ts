/**
 * The answers the console reads, as the read API and the audit contract (docs/contract.md) write
 * them. Fields the audit added to the history are optional: a server without them still shows
 * its history, and the verdict says what is missing.
 */

interface ImageRef {
  readonly sha256: string
  readonly media_type: string
  readonly bytes: number
}

export interface Order {
  readonly order_id: string
  readonly account?: string
  readonly customer: string
  readonly location: string
  readonly status: string
  readonly address: string | null
  readonly delivery_date: string | null
  readonly recipient: string | null
  readonly reason: string | null
  readonly pod: ImageRef | null
  readonly signature: ImageRef | null
  readonly created_at: string
  readonly updated_at: string
  readonly received_at: string
  readonly last_event: string
  readonly revision: number
}

export interface OrderList {
  readonly orders: readonly Order[]
  readonly next_cursor: string | null
}

export interface HistoryEvent {
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly event_date: string | null
  readonly received_at: string | null
  readonly revision: number
  readonly position?: string
  readonly hash: string
  readonly prev_hash: string | null
  readonly event_id?: string
  readonly stream?: string
  readonly leaf_index?: number | null
  readonly key_id?: string | null
  readonly request_id?: string | null
  readonly state_after?: Readonly<Record<string, unknown>> | null
}

type ChainVerdict = { readonly ok: true } | { readonly ok: false; readonly revision: number; readonly reason: string }

export interface History {
  readonly account?: string
  readonly order_id: string
  readonly events: readonly HistoryEvent[]
  readonly chain?: ChainVerdict
}

/** A signed tree head (STH). */
export interface SignedHead {
  readonly tree_size: number
  readonly root_hash: string
  readonly timestamp: string
  readonly signature: string
  readonly key_id: string
}

export interface PublicKey {
  readonly algorithm: string
  readonly public_key: string
  readonly public_key_pem: string
  readonly key_id: string
}

export interface ProofEntry {
  readonly event_id: string
  readonly revision: number
  /** Null until the projector has made the event's leaf. */
  readonly leaf_index: number | null
  readonly leaf_hash: string
  /** Null for an event past `head.tree_size` (or with no leaf yet). */
  readonly audit_path: readonly string[] | null
}

export interface OrderProof {
  /** The latest signed head; null before the first is signed. */
  readonly head: SignedHead | null
  readonly entries: readonly ProofEntry[]
}
