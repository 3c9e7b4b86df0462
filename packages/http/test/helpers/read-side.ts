import { rm } from 'node:fs/promises'
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import type { EventStore } from '@waybill/event-store'
import { openSqliteKeyStore, type SubjectKeyStore } from '@waybill/personal-data'
import { AuditLog, HeadStore, ReadModel, startProjector, type ProjectorOptions } from '@waybill/projector'

/**
 * What the app reads orders and audit heads from, in a test's data dir: a read model, a heads
 * file, a fresh key pair, and the subject key store beside the data dir (as `waybill serve` opens it).
 */
export interface ReadSide {
  readonly readModel: ReadModel
  readonly subjectKeys: SubjectKeyStore
  readonly audit: { readonly log: AuditLog; readonly heads: HeadStore }
  /** Signs heads the audit routes then serve (record its public half in the heads file for the key routes to serve it). */
  readonly signingKey: KeyObject
  readonly publicKey: KeyObject
  close(): Promise<void>
}

export async function openReadSide(dataDir: string): Promise<ReadSide> {
  const subjectKeys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
  const readModel = new ReadModel(dataDir)
  const log = new AuditLog(dataDir)
  const heads = HeadStore.inDataDir(dataDir)
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return {
    readModel, subjectKeys, audit: { log, heads }, signingKey: privateKey, publicKey,
    close: async () => {
      readModel.close()
      log.close()
      heads.close()
      await subjectKeys.close()
      await rm(`${dataDir}.subject-keys`, { recursive: true, force: true })
    },
  }
}

/** Runs a projector over `store` until the read model in `dataDir` holds every event stored so far. */
export async function projectAll(
  store: EventStore, readSide: Pick<ReadSide, 'subjectKeys'>, dataDir: string, options: Pick<ProjectorOptions, 'batchSize' | 'audit'> = {},
): Promise<void> {
  const head = await store.headPosition()
  const projector = startProjector({ store, keys: readSide.subjectKeys, dataDir, ...options })
  try {
    if (head !== null) await projector.waitFor(head)
  } finally {
    await projector.stop()
  }
}
