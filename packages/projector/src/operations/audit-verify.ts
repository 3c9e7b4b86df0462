import { createHash } from 'node:crypto'
import { ORDER_CATEGORY, parseOrderStreamName } from '@waybill/domain'
import { verifyStreamChain, type BlobStore, type EventStore, type Position } from '@waybill/event-store'
import { CompactRange, toHex, type SignedTreeHead } from '@waybill/merkle'
import { checkHeadKey, checkKeySet, subtleSha256, type AuditKey } from '@waybill/merkle/verify'
import { imagesNamedBy } from '../audit/images.js'
import { eventLeafHash } from '../audit/leaf.js'
import type { TreeLeaf } from '../audit/merkle-tables.js'
import type { SealRecord } from '../audit/seal-records.js'
import { checkSeals } from './seal/seal-check.js'

/** Where a leaf stands in the log, by order: what an auditor looks up. */
export interface LeafName {
  readonly leafIndex: number
  readonly stream: string
  readonly account: string | null
  readonly orderId: string | null
  readonly revision: number
}

export interface AuditFinding {
  /**
   * `key`: the key set does not hold together; `signature`: a head does not verify with the key
   * it names (or that key is not believed, or the head lies outside its validity); `root`: the
   * log's tree disagrees with a head; `cut`: the log is shorter than a head; `chain`, `image`;
   * `seal`: a seal of the log (its statement, its heads, the heads it set aside and their proofs)
   * does not hold (docs/audit.md#sealing).
   */
  readonly kind: 'key' | 'signature' | 'root' | 'cut' | 'chain' | 'image' | 'seal'
  readonly message: string
  /** The first leaf known to differ (or, for `cut`, the first missing one), when it can be named. */
  readonly leaf?: LeafName
}

export interface AuditVerifyReport {
  /** Order events in the log: the recomputed tree's size. */
  readonly leaves: number
  readonly root: string
  readonly headsChecked: number
  /** The keys believed (anchors and the rotations they vouched for), and the set's other keys. */
  readonly keys: { readonly believed: readonly string[]; readonly untrusted: readonly string[] }
  readonly streams: number
  readonly images: number
  readonly findings: readonly AuditFinding[]
  readonly ok: boolean
}

export interface AuditVerifyOptions {
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'get'>
  /** The log's key set (docs/audit.md#key-lifecycle): each head is checked against the key it names. */
  readonly keys: readonly AuditKey[]
  /**
   * The key ids the auditor believes from elsewhere (`--public-key`); the other keys are believed
   * only through the rotations those vouched for. Null: every sound key of the set.
   */
  readonly anchors: readonly string[] | null
  /** The heads this data directory kept. */
  readonly heads: Iterable<SignedTreeHead>
  /**
   * A head the auditor kept elsewhere: what catches a rewritten history and a cut-off tail. One
   * signed before a seal of the log is checked through the seal (docs/audit.md#sealing).
   */
  readonly keptHead?: SignedTreeHead
  /** The seals of the log (`HeadStore.seals`): each is checked, and its new root against the log. */
  readonly seals?: readonly SealRecord[]
  /**
   * The audit log (`AuditLog`), used only to name the first leaf that differs (its leaf hashes
   * were made when the events were first projected); the verdict itself rests on the log and
   * the signed heads alone.
   */
  readonly witness?: { leavesFrom(from: number): IterableIterator<TreeLeaf> } | null
  readonly onProgress?: (leaves: number) => void
}

const BATCH = 10_000

/**
 * `waybill audit verify` (docs/audit.md#waybill-audit): recomputes the Merkle tree from the event
 * log itself (not from the audit log's file), checks the key set, every head's signature by the
 * key it names (believed, and within its validity) and that the
 * log's tree has that head's root at that head's size, the same for the auditor's own head,
 * every order stream's hash chain, and every image's bytes against the sha256 its event records.
 */
export async function verifyAuditLog(options: AuditVerifyOptions): Promise<AuditVerifyReport> {
  const findings: AuditFinding[] = []
  const keys = await checkKeySet(options.keys, options.anchors, subtleSha256)
  for (const problem of keys.problems) findings.push({ kind: 'key', message: problem })
  const seals = await checkSeals(options.seals ?? [], keys, options.keptHead)
  for (const problem of seals.problems) findings.push({ kind: 'seal', message: problem })
  const targets: Array<{ head: SignedTreeHead; label: string }> = []
  for (const head of options.heads) targets.push({ head, label: `head ${head.tree_size} (${head.timestamp})` })
  for (const seal of options.seals ?? []) targets.push({ head: seal.new_head, label: `the new head of the seal of ${seal.statement.timestamp}` })
  if (options.keptHead !== undefined && !seals.keptHeadSealed) targets.push({ head: options.keptHead, label: `your kept head ${options.keptHead.tree_size} (${options.keptHead.timestamp})` })
  const checkable: typeof targets = []
  for (const target of targets) {
    const check = await checkHeadKey(target.head, keys, subtleSha256)
    if (check.ok) checkable.push(target)
    else findings.push({ kind: 'signature', message: `${target.label}: ${check.reason}` })
  }
  checkable.sort((a, b) => a.head.tree_size - b.head.tree_size)

  const range = new CompactRange()
  const streams = new Set<string>()
  const images = new Map<string, LeafName>()
  // Orders whose personal data was erased: their images were deleted with it, on purpose.
  const erased = new Set<string>()
  const witness = options.witness?.leavesFrom(0)[Symbol.iterator]()
  let firstDifference: LeafName | null = null
  let next = 0
  const checkRootsAt = (size: number): void => {
    for (; next < checkable.length && (checkable[next] as { head: SignedTreeHead }).head.tree_size === size; next += 1) {
      const { head, label } = checkable[next] as { head: SignedTreeHead; label: string }
      const root = toHex(range.root())
      if (root === head.root_hash) continue
      findings.push({
        kind: 'root',
        message: `${label}: the log's tree of ${size} leaves has root ${root}, the head signed ${head.root_hash}: the log was changed` +
          (firstDifference !== null ? `; the first leaf that differs from the signed tree is ${describe(firstDifference)}` : ''),
        ...(firstDifference !== null ? { leaf: firstDifference } : {}),
      })
    }
  }
  checkRootsAt(0)
  for (let after: Position | null = null; ;) {
    const batch = await options.store.readAll({ after, maxCount: BATCH, categories: [ORDER_CATEGORY] })
    for (const event of batch) {
      const index = range.size
      const hash = eventLeafHash(event)
      range.append(hash)
      streams.add(event.streamName)
      const witnessed = witness?.next()
      // A shorter witness (a projector still behind) names nothing; a different leaf does.
      if (firstDifference === null && witnessed !== undefined && witnessed.done !== true &&
        !witnessed.value.hash.equals(hash)) firstDifference = nameOf(index, event.streamName, event.revision)
      for (const sha256 of imagesNamedBy(event.data)) if (!images.has(sha256)) images.set(sha256, nameOf(index, event.streamName, event.revision))
      if (event.type === 'PersonalDataErased') erased.add(event.streamName)
      checkRootsAt(range.size)
    }
    options.onProgress?.(range.size)
    const last = batch.at(-1)
    if (last === undefined || batch.length < BATCH) break
    after = last.position
  }
  for (const { head, label } of checkable.slice(next)) {
    const missing = options.witness?.leavesFrom(range.size).next()
    const leaf = missing !== undefined && missing.done !== true ? nameOf(range.size, missing.value.stream, missing.value.revision) : undefined
    findings.push({
      kind: 'cut',
      message: `${label} covers ${head.tree_size} order events, but the log holds ${range.size}: events were cut from the log` +
        (leaf !== undefined ? `; the first missing leaf is ${describe(leaf)}` : ''),
      ...(leaf !== undefined ? { leaf } : {}),
    })
  }

  for (const stream of streams) {
    const verdict = verifyStreamChain(await options.store.readStream(stream))
    if (!verdict.ok) findings.push({ kind: 'chain', message: `stream ${stream}: the hash chain breaks at revision ${verdict.revision}: ${verdict.reason}` })
  }
  for (const [sha256, leaf] of images) {
    if (erased.has(leaf.stream)) continue
    const bytes = await options.blobs.get(sha256)
    const problem = bytes === null ? 'is missing' : createHash('sha256').update(bytes).digest('hex') !== sha256 ? 'does not hash to what the event recorded' : null
    if (problem !== null) findings.push({ kind: 'image', message: `image ${sha256} of ${describe(leaf)} ${problem}`, leaf })
  }
  return {
    leaves: range.size, root: toHex(range.root()), headsChecked: checkable.length,
    keys: { believed: [...keys.trusted.keys()], untrusted: [...keys.untrusted.keys()] }, streams: streams.size, images: images.size,
    findings, ok: findings.length === 0,
  }
}

function nameOf(leafIndex: number, stream: string, revision: number): LeafName {
  const name = parseOrderStreamName(stream)
  return { leafIndex, stream, account: name?.account ?? null, orderId: name?.orderId ?? null, revision }
}

/** "leaf 7: order A-1 revision 1 (account sandbox)". */
export function describe(leaf: LeafName): string {
  return leaf.orderId === null
    ? `leaf ${leaf.leafIndex}: stream ${leaf.stream} revision ${leaf.revision}`
    : `leaf ${leaf.leafIndex}: order ${leaf.orderId} revision ${leaf.revision} (account ${leaf.account ?? '?'})`
}

