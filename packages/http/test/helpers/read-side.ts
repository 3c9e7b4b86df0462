import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import type { EventStore } from '@waybill/event-store'
import { AuditLog, HeadStore, ReadModel, startProjector, type ProjectorOptions } from '@waybill/projector'

/** What the app reads orders and audit heads from, in a test's data dir: a read model, a heads file and a fresh key pair. */
export interface ReadSide {
  readonly readModel: ReadModel
  readonly audit: { readonly log: AuditLog; readonly heads: HeadStore }
  /** Signs heads the audit routes then serve (record its public half in the heads file for the key routes to serve it). */
  readonly signingKey: KeyObject
  readonly publicKey: KeyObject
  close(): void
}

export function openReadSide(dataDir: string): ReadSide {
  const readModel = new ReadModel(dataDir)
  const log = new AuditLog(dataDir)
  const heads = HeadStore.inDataDir(dataDir)
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return {
    readModel, audit: { log, heads }, signingKey: privateKey, publicKey,
    close: () => {
      readModel.close()
      log.close()
      heads.close()
    },
  }
}

/** Runs a projector over `store` until the read model in `dataDir` holds every event stored so far. */
export async function projectAll(store: EventStore, dataDir: string, options: Pick<ProjectorOptions, 'batchSize' | 'audit'> = {}): Promise<void> {
  const head = await store.headPosition()
  const projector = startProjector({ store, dataDir, ...options })
  try {
    if (head !== null) await projector.waitFor(head)
  } finally {
    await projector.stop()
  }
}
