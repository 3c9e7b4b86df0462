import { HeadStore, rotateSigningKey } from '@waybill/projector'
import type { Output } from '../command.js'
import type { WaybillConfig } from '../config.js'

/**
 * `waybill audit rotate-key [--old-key-lost]` (docs/audit.md#key-lifecycle): a new key in
 * WAYBILL_AUDIT_KEY_DIR and, in the heads file, the signed statement that it takes over at the
 * latest head, which the new key signs again. A running projector follows before its next head.
 */
export function rotateKeyCommand(config: Pick<WaybillConfig, 'dataDir' | 'audit'>, oldKeyLost: boolean, stdout: Output): number {
  const heads = HeadStore.inDataDir(config.dataDir)
  try {
    const { statement, key } = rotateSigningKey(config.audit.keyDir, heads, { oldKeyLost })
    const lines = [
      `waybill audit rotate-key: key ${statement.old_key_id} is retired; heads are signed by key ${key.keyId} (${key.path}) from tree size ${statement.tree_size} (${statement.timestamp})`,
      statement.kind === 'rotated'
        ? `  key ${statement.old_key_id} endorsed the new key: an auditor who pinned ${statement.old_key_id} comes to trust ${key.keyId} through it; its private key is deleted`
        : `  key ${statement.old_key_id} is recorded as lost: only the new key vouches for itself, so tell your auditors its id (${key.keyId}) out of band, for them to pin it`,
      `  a running projector signs with the new key from its next head; \`waybill audit keys\` shows the key set and GET /v1/audit/public-keys serves it`,
      '  the new public key:',
      ...key.publicKey.export({ format: 'pem', type: 'spki' }).toString().trimEnd().split('\n').map((line) => `  ${line}`),
    ]
    stdout.write(`${lines.join('\n')}\n`)
    return 0
  } finally {
    heads.close()
  }
}
