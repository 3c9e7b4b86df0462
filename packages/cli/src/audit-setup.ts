import { HeadStore, loadOrCreateSigningKey, type AuditOptions, type SigningKey } from '@waybill/projector'
import type { WaybillConfig } from './config.js'

export interface OpenedAudit {
  readonly key: SigningKey
  readonly heads: HeadStore
  /** What the projector signs with, and how often. */
  readonly options: AuditOptions
  /** Lines to print: the public key, when this start made the signing key. */
  readonly notice: readonly string[]
  close(): void
}

/**
 * The tree-head signing key (made at first start, in WAYBILL_AUDIT_KEY_DIR) and the kept heads
 * of the data directory: what `serve` and `projector` sign and serve with (docs/audit.md).
 */
export function openAudit(config: Pick<WaybillConfig, 'dataDir' | 'audit'>): OpenedAudit {
  const key = loadOrCreateSigningKey(config.audit.keyDir)
  const heads = HeadStore.inDataDir(config.dataDir)
  const notice = key.created
    ? [`waybill: created the tree-head signing key ${key.path} (keep it off the data dir's backups; auditors pin its public key, key id ${key.keyId}):`,
      ...key.publicKey.export({ format: 'pem', type: 'spki' }).toString().trimEnd().split('\n').map((line) => `  ${line}`)]
    : []
  return {
    key, heads, notice,
    options: { signingKey: key.privateKey, heads, everyEvents: config.audit.headEveryEvents, everyMs: config.audit.headEveryMs },
    close: () => heads.close(),
  }
}
