import { rmSync } from 'node:fs'
import { ORDER_CATEGORY, parseOrderStreamName } from '@waybill/domain'
import { openSqliteEventStore, type BlobStore, type EventStore, type RecordedEvent } from '@waybill/event-store'
import { CompactRange, signSealStatement, signTreeHead, toHex, verifyConsistency, type SealStatement } from '@waybill/merkle'
import type { KeyRequest, SubjectKeyStore } from '@waybill/personal-data'
import { AuditLog } from '../../audit/audit-log.js'
import type { HeadStore } from '../../audit/head-store.js'
import { eventLeafHash } from '../../audit/leaf.js'
import type { SealRecord } from '../../audit/seal-records.js'
import type { SigningKey } from '../../audit/signing-key.js'
import { rebuildAuditLog } from '../audit-rebuild.js'
import { eachBatch } from '../each-batch.js'
import { rehashSealedLog } from './rehash.js'
import { isVersion1, rechained, SEALED_FROM, sealVersion1, version1Images } from './version-1.js'

export interface SealOptions {
  /** The live log (the embedded store), with nothing else writing to it. */
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'read' | 'put' | 'remove'>
  readonly keys: SubjectKeyStore
  readonly dataDir: string
  readonly heads: HeadStore
  /** The heads' current key: it signs the closing head, the new head and the statement. */
  readonly signingKey: SigningKey
  /** Where the sealed log is written, beside the live one, before it replaces it. */
  readonly sealedLogPath: string
  readonly reason: string
  readonly requestedBy: string
  readonly now?: () => Date
}

/** What the seal found and wrote before the sealed log replaces the live one. */
export interface SealPlan {
  readonly seal: SealRecord
  /** Version-1 events sealed, orders given a key, images sealed. */
  readonly events: number
  readonly orders: number
  readonly images: number
}

const BATCH = 5_000
const KEY_BATCH = 1_000

/** Order events of the live log, and how many of them are version-1 (plain). */
export async function countVersion1(store: Pick<EventStore, 'readAll'>): Promise<{ readonly orderEvents: number; readonly plain: number }> {
  let orderEvents = 0
  let plain = 0
  await eachBatch(store, { categories: [ORDER_CATEGORY], batch: BATCH }, (batch) => {
    orderEvents += batch.length
    for (const event of batch) if (isVersion1(event)) plain += 1
  })
  return { orderEvents, plain }
}

/**
 * Whether the log still holds events stored before sealing, read from its first order event
 * alone: every version-1 event was written before the first sealed one (the release that seals
 * wrote none), and `waybill seal` rewrites them all, so the first tells. Cheap enough for every
 * start of `waybill serve`, which says so (such orders take no delivery until the seal).
 */
export async function holdsUnsealed(store: Pick<EventStore, 'readAll'>): Promise<boolean> {
  const [first] = await store.readAll({ maxCount: 1, categories: [ORDER_CATEGORY] })
  return first !== undefined && isVersion1(first)
}

/**
 * The first half of `waybill seal` (docs/personal-data.md#data-written-before-sealing): the
 * sealed log written to `sealedLogPath` and checked, then the seal recorded in the heads file.
 * Each order with version-1 events gets its key (with its customer); every event keeps its
 * position, stream and revision, the version-1 ones sealed as the ingress seals today
 * (`sealVersion1`), every stream chained again; the images stored sealed. The old tree is built
 * again (and checked against every kept head) for the consistency proof of each head to the
 * closing head. The sealed log must hash back to the old root (`rehashSealedLog`) before anything
 * is signed. The caller then puts the sealed log in place and calls `finishSeal`.
 */
export async function writeSealedLog(options: SealOptions): Promise<SealPlan> {
  const { store, keys, heads, signingKey } = options
  if (store.importRecorded === undefined) throw new Error('this event store cannot be sealed in place (the embedded store only)')
  const orders = await ordersToKey(store)
  for (let i = 0; i < orders.length; i += KEY_BATCH) {
    const made = await keys.createMany(orders.slice(i, i + KEY_BATCH))
    const erased = made.findIndex((key) => key === 'erased')
    if (erased !== -1) throw new Error(`order ${orders[i + erased]?.orderId ?? '?'} of account ${orders[i + erased]?.account ?? '?'} has an erased key but plain events: the key store is not this log's`)
  }

  // The old tree, checked against every kept head, for the proofs from each to the closing head.
  await rebuildAuditLog({ store, dataDir: options.dataDir, heads })
  const oldTree = new AuditLog(options.dataDir, { create: false })
  let size: number
  let oldRoot: string
  const proofs = new Map<number, string[]>()
  try {
    size = oldTree.size()
    oldRoot = toHex(oldTree.root(size))
    for (const head of heads.all()) {
      const proof = oldTree.consistency(head.tree_size, size)
      if (!verifyConsistency(head.tree_size, size, oldTree.root(head.tree_size), oldTree.root(size), proof) || toHex(oldTree.root(head.tree_size)) !== head.root_hash) throw new Error(`head ${head.tree_size} is not consistent with the log's tree`)
      proofs.set(head.tree_size, proof.map(toHex))
    }
  } finally {
    oldTree.close()
  }

  const written = await writeLog(options, size)
  if (written.oldRoot !== oldRoot) throw new Error(`the log changed while it was sealed: its tree's root is ${written.oldRoot}, the audit log's ${oldRoot}`)
  const sealed = await openSqliteEventStore({ path: options.sealedLogPath, writer: 'inline' })
  try {
    const rehash = await rehashSealedLog(sealed, keys, size)
    if (rehash.root !== oldRoot) throw new Error(`the sealed log does not hash back to the log it seals (${rehash.problems.join('; ') || `root ${rehash.root ?? 'none'}`}): nothing was changed`)
  } finally {
    await sealed.close()
  }

  const at = (options.now ?? (() => new Date()))()
  const key = signingKey.privateKey
  const statement: SealStatement = signSealStatement(key, {
    old_tree_size: size, old_root_hash: oldRoot, new_tree_size: size, new_root_hash: written.newRoot, at, reason: options.reason, requested_by: options.requestedBy,
  })
  const seal = heads.recordSeal({
    statement, closing_head: signTreeHead(key, size, oldRoot, at), new_head: signTreeHead(key, size, written.newRoot, at), proofs,
  })
  return { seal, events: written.events, orders: orders.length, images: written.images }
}

/** Each order with a version-1 ORDER_ADD: its key is made with the customer it names. */
async function ordersToKey(store: Pick<EventStore, 'readAll'>): Promise<KeyRequest[]> {
  const requests: KeyRequest[] = []
  await eachBatch(store, { categories: [ORDER_CATEGORY], batch: BATCH }, (batch) => {
    for (const event of batch) {
      const name = parseOrderStreamName(event.streamName)
      if (name === null || event.type !== 'OrderAdded' || !isVersion1(event) || typeof event.data.customer !== 'string') continue
      requests.push({ account: name.account, orderId: name.orderId, customer: event.data.customer })
    }
  })
  return requests
}

/** The sealed log, written whole to `sealedLogPath`: the roots of the old and the new tree of its first `size` order events. */
async function writeLog(options: SealOptions, size: number): Promise<{ oldRoot: string; newRoot: string; events: number; images: number }> {
  const { store, blobs, keys } = options
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${options.sealedLogPath}${suffix}`, { force: true })
  const sealed = await openSqliteEventStore({ path: options.sealedLogPath, writer: 'inline' })
  const oldRange = new CompactRange()
  const newRange = new CompactRange()
  const chains = new Map<string, string>()
  const sealedImages = new Set<string>()
  let events = 0
  try {
    await eachBatch(store, { batch: BATCH }, async (batch) => {
      const out: RecordedEvent[] = []
      for (const event of batch) {
        const isOrder = parseOrderStreamName(event.streamName) !== null
        let next = event
        if (isVersion1(event)) {
          const name = parseOrderStreamName(event.streamName) as { account: string; orderId: string }
          const key = keys.get(name.account, name.orderId)
          if (key === null || key === 'erased') throw new Error(`order ${name.orderId} of account ${name.account} has no key to seal it with`)
          const change = sealVersion1(event, key, await plainImages(blobs, event))
          for (const blob of change.blobs) {
            if (sealedImages.has(blob.sha256)) continue
            await blobs.put(blob.bytes, blob.sha256)
            sealedImages.add(blob.sha256)
          }
          const { prev_hash: _prev, ...metadata } = event.metadata
          next = rechained(event, { id: change.id, data: change.data, metadata: { ...metadata, schema_version: 2, [SEALED_FROM]: 1 } }, chains.get(event.streamName) ?? null)
          events += 1
        } else if (event.metadata.prev_hash !== (chains.get(event.streamName) ?? event.metadata.prev_hash)) {
          next = rechained(event, event, chains.get(event.streamName) ?? null)
        }
        chains.set(event.streamName, next.hash)
        if (isOrder && oldRange.size < size) {
          oldRange.append(eventLeafHash(event))
          newRange.append(eventLeafHash(next))
        }
        out.push(next)
      }
      await sealed.importRecorded(out)
    })
  } finally {
    await sealed.close()
  }
  return { oldRoot: toHex(oldRange.root()), newRoot: toHex(newRange.root()), events, images: sealedImages.size }
}

/** The plain bytes of each image a version-1 event names, checked against its sha256. */
async function plainImages(blobs: Pick<BlobStore, 'read'>, event: RecordedEvent): Promise<Map<string, Buffer>> {
  const images = new Map<string, Buffer>()
  for (const { sha256 } of version1Images(event)) {
    const read = await blobs.read(sha256)
    if (read.status !== 'ok') throw new Error(`image ${sha256} of ${event.streamName} revision ${event.revision} is ${read.status}: it cannot be sealed (restore it from a backup first)`)
    images.set(sha256, Buffer.concat(read.chunks, read.size))
  }
  return images
}

