import { createPublicKey } from 'node:crypto'
import { verifySealStatement } from '@waybill/merkle'
import { countVersion1, HeadStore, rehashSealedLog } from '@waybill/projector'
import type { Output } from '../command.js'
import type { WaybillConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { describe } from './seal.js'

/**
 * `waybill seal --verify` (docs/audit.md#sealing): for each seal of the log, its statement's
 * signature by the key it names, and the old root recomputed from the sealed log by opening each
 * event the seal wrote back to its plain form. Exit 0 when every seal holds.
 */
export async function verifySealCommand(config: WaybillConfig, stdout: Output): Promise<number> {
  const heads = HeadStore.inDataDir(config.dataDir)
  const opened = await openStore(config, { create: false, writer: 'inline' })
  try {
    const seals = heads.seals()
    if (seals.length === 0) {
      const { plain } = await countVersion1(opened.store)
      stdout.write(`seal --verify: FAILED — the log was never sealed${plain > 0 ? ` (it holds ${plain} version-1 event(s): run \`waybill seal\`)` : ''}\n`)
      return 1
    }
    let ok = true
    for (const seal of seals) {
      const key = heads.keys().find((k) => k.key_id === seal.statement.key_id)
      const signed = key !== undefined &&
        verifySealStatement(seal.statement, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.public_key, 'base64').toString('base64url') }, format: 'jwk' }))
      const rehash = await rehashSealedLog(opened.store, opened.keys, seal.statement.old_tree_size)
      const holds = signed && rehash.root === seal.statement.old_root_hash
      ok &&= holds
      stdout.write([
        `seal of ${seal.statement.timestamp}: ${describe(seal)}`,
        `  statement: ${signed ? `signed by key ${seal.statement.key_id}` : `NOT signed by key ${seal.statement.key_id} of the heads file's key set`}`,
        `  re-hash: ${rehash.opened} sealed event(s) opened back to their plain form; ` +
          (rehash.root === null ? `the old root cannot be recomputed: ${rehash.problems.join('; ')}`
            : `the first ${rehash.size} order events hash to ${rehash.root}${rehash.root === seal.statement.old_root_hash ? ', the old root' : `, NOT the old root ${seal.statement.old_root_hash}`}`),
        '',
      ].join('\n'))
    }
    stdout.write(ok ? 'seal --verify: OK — the sealed log holds exactly the events of the tree it replaced\n' : 'seal --verify: FAILED\n')
    return ok ? 0 : 1
  } finally {
    await opened.close()
    heads.close()
  }
}
