import type { KeyObject } from 'node:crypto'
import { signTreeHead, toHex, type Hash, type SignedTreeHead } from '@waybill/merkle'
import type { HeadStore } from './head-store.js'

/** What signing needs of a tree: its size and its root at any size up to it. */
export interface TreeView {
  size(): number
  root(size: number): Hash
}

export interface HeadPolicy {
  /** A head at least every this many new leaves. Default 1,000. */
  readonly everyEvents?: number
  /** A head at least this long after the last one, when the tree grew. Default 10 s. */
  readonly everyMs?: number
}

export interface AuditOptions extends HeadPolicy {
  /**
   * The key heads are signed with: a fixed key, or a function asked before each head that answers
   * the key to sign with now, or why there is none (a projector that follows
   * `waybill audit rotate-key`: `followSigningKey`).
   */
  readonly signingKey: KeyObject | (() => KeyObject | string)
  readonly heads: HeadStore
}

/** When caught up, a head is made for a grown tree, but not more often than this. */
const CAUGHT_UP_MIN_MS = 1000
/**
 * Heads signed while the projection is behind are kept this many at a time, in one transaction
 * of the heads file (each is an fsync, which was half of a catch-up's time), or as soon as it
 * catches up, stops, or the first of them is `CAUGHT_UP_MIN_MS` old: the age bounds what a crash
 * can take, and at a catch-up's 100,000 events a second a write of 64 comes before that age
 * (16 to a write left a catch-up from nothing about 5% slower, `pnpm bench:rebuild`).
 */
const HEADS_PER_WRITE = 64

export type HeadVerdict =
  | { readonly kind: 'none' }
  | { readonly kind: 'signed'; readonly head: SignedTreeHead }
  | { readonly kind: 'behind'; readonly treeSize: number; readonly headSize: number }
  | { readonly kind: 'inconsistent'; readonly head: SignedTreeHead; readonly root: string }
  | { readonly kind: 'no_key'; readonly reason: string }

/**
 * Decides after each audit projection batch whether to sign a head (docs/audit.md#signed-tree-heads): every
 * `everyEvents` new leaves, or `everyMs` after the last head, or on catching up (at most once a
 * second), as long as the tree grew. It never signs a tree that does not extend the latest kept
 * head: the root at that head's size must be the head's root. A tree smaller than that head (the
 * log lost events, or an audit log started again from nothing that has not reached it) is left
 * unsigned too. `force` (a projection stopping) signs a grown tree whatever the policy says. A
 * head is kept only while its key is the current one (docs/audit.md#key-lifecycle). Heads signed
 * while behind are kept a few at a time (`HEADS_PER_WRITE`); a crash before they are loses them
 * as it would have lost heads not yet signed, and the next head covers their leaves.
 */
export function headMaker(options: AuditOptions, now: () => Date = () => new Date()) {
  const everyEvents = options.everyEvents ?? 1000
  const everyMs = options.everyMs ?? 10_000
  let lastAt = 0
  // Signed, not yet in the heads file; the latest of them is the latest head.
  let pending: SignedTreeHead[] = []
  let pendingSince = 0
  const decide = (tree: TreeView, caughtUp: boolean, force: boolean): HeadVerdict => {
    const latest = pending.at(-1) ?? options.heads.latest()
    const size = tree.size()
    const latestSize = latest?.tree_size ?? -1
    if (latest !== null && size < latest.tree_size) {
      return caughtUp ? { kind: 'behind', treeSize: size, headSize: latest.tree_size } : { kind: 'none' }
    }
    if (latest !== null) {
      const root = toHex(tree.root(latest.tree_size))
      if (root !== latest.root_hash) return { kind: 'inconsistent', head: latest, root }
    }
    if (size === latestSize || size === 0) return { kind: 'none' }
    const at = now()
    const since = at.getTime() - Math.max(lastAt, latest === null ? 0 : Date.parse(latest.timestamp))
    const due = force || latest === null || size - latestSize >= everyEvents || since >= everyMs || (caughtUp && since >= CAUGHT_UP_MIN_MS)
    if (!due) return { kind: 'none' }
    const key = typeof options.signingKey === 'function' ? options.signingKey() : options.signingKey
    if (typeof key === 'string') return { kind: 'no_key', reason: key }
    const head = signTreeHead(key, size, toHex(tree.root(size)), at)
    if (pending.length === 0) pendingSince = at.getTime()
    pending.push(head)
    lastAt = at.getTime()
    return { kind: 'signed', head }
  }
  return (tree: TreeView, caughtUp: boolean, force = false): HeadVerdict => {
    const verdict = decide(tree, caughtUp, force)
    const due = caughtUp || force || pending.length >= HEADS_PER_WRITE || now().getTime() - pendingSince >= CAUGHT_UP_MIN_MS
    if (pending.length === 0 || !due) return verdict
    const kept = options.heads.addAll(pending)
    pending = []
    // Not kept when the key was retired since it was asked for: the next batch signs with the new one.
    return verdict.kind === 'signed' && kept.at(-1) !== true ? { kind: 'none' } : verdict
  }
}
