import { join } from 'node:path'
import { orderDecider, SCHEMA_VERSION, streamNameFor, type ValidDelivery, type WireEvent } from '@waybill/domain'
import { handleCommand, openFileBlobStore, openSqliteEventStore, type CommandResult } from '@waybill/event-store'
import { openSqliteKeyStore, sealDelivery } from '@waybill/personal-data'

/** Writes deliveries into a data dir as `waybill serve` would: sealed with keys in `<dataDir>.subject-keys`, images in its blob store. */
export interface Seeder {
  /** One delivery: `fields` as the wire payload has them, `event_date` among them, images decoded. */
  run(account: string, event: WireEvent, fields: Record<string, unknown>): Promise<CommandResult<unknown, string>>
  close(): Promise<void>
}

export async function openSeeder(dataDir: string, receivedAt = '2025-05-01T00:00:00.000Z'): Promise<Seeder> {
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
  const metadata = { received_at: receivedAt, key_id: 'k', request_id: 'r', schema_version: SCHEMA_VERSION }
  return {
    async run(account, event, fields) {
      const { event_date, ...payload } = fields
      const delivery = { event, event_date, payload } as unknown as ValidDelivery
      const sealed = await sealDelivery(keys, account, delivery)
      if (!sealed.ok) throw new Error(sealed.refusal)
      for (const blob of sealed.blobs) await blobs.put(blob.bytes, blob.sha256)
      return handleCommand(store, streamNameFor(account, delivery.payload.order_id), orderDecider, sealed.command, { metadata })
    },
    async close() {
      await store.close()
      await keys.close()
    },
  }
}
