import { basename } from 'node:path'
import { ORDER_CATEGORY, parseOrderStreamName } from '@waybill/domain'
import type { BlobStore, EventStore } from '@waybill/event-store'
import { CompactRange, toHex } from '@waybill/merkle'
import { openJson, personalContext, type SubjectKeyStore } from '@waybill/personal-data'
import type { HeadStore } from '../../audit/head-store.js'
import { eventLeafHash } from '../../audit/leaf.js'
import type { SealRecord } from '../../audit/seal-records.js'
import { AUDIT_LOG_FILES, currentGeneration, READ_MODEL_FILES, removeOldGenerations } from '../../generation/pointer.js'
import { rebuildAuditLog } from '../audit-rebuild.js'
import { eachBatch } from '../each-batch.js'
import { rebuildReadModel } from '../rebuild.js'
import { SEALED_FROM } from './version-1.js'

const BATCH = 5_000

export interface FinishSealOptions {
  /** The log, the sealed one now in place. */
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'remove'>
  readonly keys: Pick<SubjectKeyStore, 'get' | 'getMany'>
  readonly dataDir: string
  readonly heads: HeadStore
  readonly seal: SealRecord
}

/** What finishing a seal removed. */
export interface FinishedSeal {
  /** Plain image files deleted. */
  readonly plainImages: number
}

/**
 * The second half of `waybill seal`, once the sealed log is in place (and what a `waybill seal`
 * run again after a crash does): checks that the log is the sealed one (its tree's root at the
 * seal's size is the statement's new root); deletes the images' plain files; rebuilds the orders
 * read model and the audit log over the sealed log and deletes every earlier generation of both
 * (they hold the plain values and the plain leaves); marks the seal finished. Each step can run again.
 */
export async function finishSeal(options: FinishSealOptions): Promise<FinishedSeal> {
  const { store, seal } = options
  const range = new CompactRange()
  const plain = new Set<string>()
  await eachBatch(store, { categories: [ORDER_CATEGORY], batch: BATCH }, (batch) => {
    for (const event of batch) {
      if (range.size < seal.statement.new_tree_size) range.append(eventLeafHash(event))
      if (event.metadata[SEALED_FROM] !== 1) continue
      const name = parseOrderStreamName(event.streamName)
      const key = name === null ? null : options.keys.get(name.account, name.orderId)
      if (key === null || key === 'erased' || (event.data.pod === undefined && event.data.signature === undefined)) continue
      const opened = openJson(key, personalContext(event.streamName, event.type), event.data.personal as never)
      for (const field of ['pod', 'signature']) if (typeof opened[field] === 'string') plain.add(opened[field])
    }
  })
  if (toHex(range.root()) !== seal.statement.new_root_hash || range.size !== seal.statement.new_tree_size) {
    throw new Error(`the log in place is not the sealed one: its tree of ${range.size} leaves has root ${toHex(range.root())}, the seal says ${seal.statement.new_root_hash}`)
  }
  let removed = 0
  for (const sha256 of plain) if (await options.blobs.remove(sha256)) removed += 1
  await rebuildReadModel({ store, keys: options.keys, dataDir: options.dataDir })
  await rebuildAuditLog({ store, dataDir: options.dataDir, heads: options.heads })
  for (const files of [READ_MODEL_FILES, AUDIT_LOG_FILES]) removeOldGenerations(options.dataDir, files, [basename(currentGeneration(options.dataDir, files).path)])
  options.heads.finishSeal(seal.seal_id)
  return { plainImages: removed }
}
