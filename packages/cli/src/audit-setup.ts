import { followSigningKey, HeadStore, openSigningKey, SigningKeyRefused, type AuditOptions, type SigningKey } from '@waybill/projector'
import type { WaybillConfig } from './config.js'

export interface OpenedSigning {
  /** The key heads are signed with; null when the key directory does not hold the heads' key (`problem`). */
  readonly key: SigningKey | null
  readonly heads: HeadStore
  /** What the projector signs with (following `waybill audit rotate-key`), and how often. */
  readonly options: AuditOptions
  /** Lines to print: the public key, when this start made the signing key. */
  readonly notice: readonly string[]
  close(): void
}

/**
 * The projector's side of the audit log (docs/audit.md#key-lifecycle): the heads file, and the
 * private tree-head key from WAYBILL_AUDIT_KEY_DIR, made at a first start. Only a process that
 * projects calls this: `serve --no-projector` reads the heads file alone. With `refuse`, a key
 * directory that does not hold the heads' current key stops the start (`SigningKeyRefused`,
 * naming the two ways out); without it (serve's projector thread, whose process already
 * checked), the projector runs and signs nothing, saying why in its status.
 */
export function openSigning(config: Pick<WaybillConfig, 'dataDir' | 'audit'>, options: { readonly refuse: boolean }): OpenedSigning {
  const heads = HeadStore.inDataDir(config.dataDir)
  let key: SigningKey | null = null
  let refusal: string | null = null
  try {
    key = openSigningKey(config.audit.keyDir, heads, { create: true })
  } catch (error) {
    if (options.refuse || !(error instanceof SigningKeyRefused)) {
      heads.close()
      throw error
    }
    refusal = error.message
  }
  const notice = key?.created === true
    ? [`waybill: created the tree-head signing key ${key.path} (keep it off the data dir's backups; auditors pin its public key, key id ${key.keyId}):`,
      ...key.publicKey.export({ format: 'pem', type: 'spki' }).toString().trimEnd().split('\n').map((line) => `  ${line}`)]
    : []
  const signingKey = key === null ? () => refusal ?? '' : followSigningKey(config.audit.keyDir, heads, key)
  return {
    key, heads, notice,
    options: { signingKey, heads, everyEvents: config.audit.headEveryEvents, everyMs: config.audit.headEveryMs },
    close: () => heads.close(),
  }
}
