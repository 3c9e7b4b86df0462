import type { KeyObject } from 'node:crypto'
import { keyIdOf, rawPublicKey, type SignedTreeHead } from '@waybill/merkle'
import type { AuditKey } from '@waybill/merkle/verify'
import { AuditLog, HeadStore, readSigningKey, verifyAuditLog, type AuditVerifyReport } from '@waybill/projector'
import type { Output } from '../command.js'
import type { WaybillConfig } from '../config.js'
import type { OpenedStore } from '../open-store.js'

export interface VerifyInputs {
  /** A head the auditor kept elsewhere (`--head`). */
  readonly kept?: SignedTreeHead
  /** The keys the auditor pinned (`--public-key`, any number): the anchors of trust. Empty: the data dir's own key set. */
  readonly pinned: readonly KeyObject[]
}

/**
 * `waybill audit verify` on an opened store: every kept head (and the auditor's) against the key
 * it names, from the heads file's key set (docs/audit.md#key-lifecycle). Pinned keys are the
 * anchors: a key is believed when pinned or vouched for by a rotation from a believed key. With
 * none pinned, every key of the set is believed, with the key in WAYBILL_AUDIT_KEY_DIR added
 * when the set lacks it (a heads file deleted). The report goes to `stdout`; the exit code is
 * 0 when all holds.
 */
export async function verifyCommand(opened: OpenedStore, config: Pick<WaybillConfig, 'dataDir' | 'audit'>, inputs: VerifyInputs, json: boolean,
  stdout: Output): Promise<number> {
  const report = await auditVerify(opened, config, inputs)
  if (json) {
    stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  } else {
    const source = inputs.pinned.length > 0 ? '--public-key, and the keys they vouched for' : 'the heads file\'s key set'
    stdout.write(`log: ${report.leaves} order events, root ${report.root}; ${report.streams} streams, ${report.images} images\n`)
    stdout.write(`heads checked, each against the key it names: ${report.headsChecked}${inputs.kept !== undefined ? ' (with your kept head)' : ' (no kept head given: a history re-signed with the key is not caught; see --head)'}; ` +
      `keys believed: ${report.keys.believed.join(', ') || 'none'} (${source})\n`)
    for (const finding of report.findings) stdout.write(`${finding.kind.toUpperCase()}: ${finding.message}\n`)
    stdout.write(report.ok ? 'audit verify: OK\n' : `audit verify: FAILED — ${report.findings.length} finding(s)\n`)
  }
  return report.ok ? 0 : 1
}

/** The report of `waybill audit verify`. */
async function auditVerify(opened: OpenedStore, config: Pick<WaybillConfig, 'dataDir' | 'audit'>, inputs: VerifyInputs): Promise<AuditVerifyReport> {
  const heads = HeadStore.inDataDir(config.dataDir)
  // Read, never made or changed: an audit leaves the data dir as it found it.
  const auditLog = new AuditLog(config.dataDir, { create: false })
  try {
    const keys: AuditKey[] = [...heads.keys()]
    const extra = inputs.pinned.length > 0 ? inputs.pinned : keyDirKey(config.audit.keyDir)
    for (const key of extra) if (!keys.some((k) => k.key_id === keyIdOf(key))) keys.push({ key_id: keyIdOf(key), public_key: rawPublicKey(key).toString('base64'), replaces: null })
    let witness = null
    try {
      auditLog.size()
      witness = auditLog
    } catch {
      // No audit log (yet): the leaf that differs is then named by range only.
    }
    return await verifyAuditLog({
      store: opened.store, blobs: opened.blobs, keys, anchors: inputs.pinned.length > 0 ? inputs.pinned.map((key) => keyIdOf(key)) : null,
      heads: heads.all(), seals: heads.seals(), witness, ...(inputs.kept !== undefined ? { keptHead: inputs.kept } : {}),
    })
  } finally {
    auditLog.close()
    heads.close()
  }
}

/** The public half of the key in the key directory, when there is one to read. */
function keyDirKey(dir: string): KeyObject[] {
  try {
    const key = readSigningKey(dir)
    return key === null ? [] : [key.publicKey]
  } catch {
    return []
  }
}
