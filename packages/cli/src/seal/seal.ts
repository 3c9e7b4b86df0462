import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  countVersion1, finishSeal, HeadStore, LogInUseError, openSigningKey, ReadModel, refuseLogInUse, replaceLog, SigningKeyRefused, verifyAuditLog,
  verifyOrders, writeSealedLog, type SealRecord,
} from '@waybill/projector'
import type { Output } from '../command.js'
import type { WaybillConfig } from '../config.js'
import { openStore, type OpenedStore } from '../open-store.js'

export interface SealRequest {
  /** The embedded store's file. */
  readonly livePath: string
  readonly reason: string
  readonly requestedBy: string
}

/** Where the sealed log is written before it replaces the live one. */
const SEALED_FILE = 'events.sealed.sqlite'

/**
 * `waybill seal` (docs/personal-data.md#data-written-before-sealing): refused while the log is in
 * use or does not verify; nothing to do once sealed; finishes a seal a crash interrupted.
 */
export async function sealCommand(config: WaybillConfig, request: SealRequest, stdout: Output, stderr: Output): Promise<number> {
  const refuse = (message: string): number => {
    stderr.write(`waybill seal: ${message}\n`)
    return 1
  }
  if (!existsSync(request.livePath)) return refuse(`no event store at ${request.livePath}: check WAYBILL_DATA_DIR (nothing was created there)`)
  try {
    refuseLogInUse(request.livePath)
  } catch (error) {
    if (error instanceof LogInUseError) return refuse(error.message)
    throw error
  }
  const sealedPath = join(config.dataDir, SEALED_FILE)
  const heads = HeadStore.inDataDir(config.dataDir)
  let opened: OpenedStore | null = await openStore(config, { create: false, writer: 'inline' })
  try {
    const unfinished = heads.seals().find((seal) => seal.finished_at === null)
    if (unfinished === undefined) {
      const { plain } = await countVersion1(opened.store)
      if (plain === 0) {
        const done = heads.seals().at(-1)
        stdout.write(done === undefined
          ? 'nothing to seal: every event of the log is sealed already (written by this Waybill)\n'
          : `nothing to seal: the log was sealed at ${done.statement.timestamp} (${describe(done)})\n`)
        return 0
      }
      const problems = await checkBefore(opened, config, heads)
      if (problems.length > 0) return refuse(`the data dir does not verify, so it is not sealed (nothing was changed):\n  ${problems.join('\n  ')}`)
      let signingKey
      try {
        signingKey = openSigningKey(config.audit.keyDir, heads, { create: false })
      } catch (error) {
        if (error instanceof SigningKeyRefused) return refuse(error.message)
        throw error
      }
      const plan = await writeSealedLog({
        store: opened.store, blobs: opened.blobs, keys: opened.keys, dataDir: config.dataDir, heads, signingKey, sealedLogPath: sealedPath,
        reason: request.reason, requestedBy: request.requestedBy,
      })
      stdout.write(`sealed ${plan.events} version-1 event(s) of ${plan.orders} order(s) and ${plan.images} image(s) into ${sealedPath}; it hashes back to the old tree\n`)
    } else {
      stdout.write(`finishing the seal of ${unfinished.statement.timestamp}, which did not finish\n`)
    }
    const seal = heads.seals().find((record) => record.finished_at === null) as SealRecord
    if (existsSync(sealedPath)) {
      await opened.close()
      opened = null
      replaceLog(request.livePath, sealedPath)
      opened = await openStore(config, { create: false, writer: 'inline' })
    }
    const finished = await finishSeal({ store: opened.store, blobs: opened.blobs, keys: opened.keys, dataDir: config.dataDir, heads, seal })
    stdout.write([
      `the sealed log is in place: ${describe(seal)}`,
      `  ${seal.sealed_heads.length} head(s) signed before it set aside with their consistency proofs to the closing head (\`waybill audit verify --head <an old head>\` checks one through the seal)`,
      `  ${finished.plainImages} plain image file(s) deleted; the read model and the audit log rebuilt over the sealed log, their earlier files deleted`,
      `  seal statement: ${JSON.stringify(seal.statement)}`,
      'seal: OK — `waybill seal --verify` recomputes the old root from the sealed log (while the keys exist); `waybill audit verify` checks the statement and every head',
      '',
    ].join('\n'))
    return 0
  } catch (error) {
    if (error instanceof LogInUseError) return refuse(error.message)
    throw error
  } finally {
    await opened?.close()
    heads.close()
  }
}

/** "old tree 60 leaves, root …; new tree 60 leaves, root …; key …; reason …". */
export function describe(seal: SealRecord): string {
  const s = seal.statement
  return `old tree of ${s.old_tree_size} leaves, root ${s.old_root_hash}; new tree of ${s.new_tree_size} leaves, root ${s.new_root_hash}; ` +
    `signed by key ${s.key_id}; reason ${JSON.stringify(s.reason)}, requested by ${JSON.stringify(s.requested_by)}`
}

/** What `waybill verify` and `waybill audit verify` would refuse in the data dir. */
async function checkBefore(opened: OpenedStore, config: WaybillConfig, heads: HeadStore): Promise<string[]> {
  const problems: string[] = []
  const readModel = new ReadModel(config.dataDir)
  try {
    const orders = await verifyOrders({ store: opened.store, keys: opened.keys, readModel })
    for (const broken of orders.brokenChains) problems.push(`stream ${broken.stream}: the hash chain breaks at revision ${broken.revision}: ${broken.reason}`)
    for (const mismatch of orders.mismatches) problems.push(`the read model's ${mismatch.account}/${mismatch.orderId} differs from the log (${mismatch.fields.join(', ')})`)
  } finally {
    readModel.close()
  }
  const gaps = await opened.store.gaps?.()
  if (gaps !== undefined && gaps.missing > 0) problems.push(`the log has ${gaps.missing} gap(s), from position ${gaps.firstMissing.join(', ')}`)
  const audit = await verifyAuditLog({ store: opened.store, blobs: opened.blobs, keys: heads.keys(), anchors: null, heads: heads.all(), seals: heads.seals() })
  for (const finding of audit.findings) problems.push(`${finding.kind}: ${finding.message}`)
  return problems
}
