import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { eventIdFor, orderDecider, SCHEMA_VERSION, streamNameFor, type OrderCommand, type WireEvent } from '@waybill/domain'
import { handleCommand, openFileBlobStore, openSqliteEventStore, type RecordedEvent } from '@waybill/event-store'
import type { Env } from '../src/command.js'
import { runWaybill, startWaybill } from '../src/testing.js'

/** A 1x1 PNG, and another, as proofs of delivery. */
export const IMAGES = ['iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='].map((text) => {
  const bytes = Buffer.from(text, 'base64')
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') }
})

function cmd(event: WireEvent, data: Record<string, unknown>): OrderCommand {
  return { type: event, data, eventId: eventIdFor('sandbox', event, data) } as unknown as OrderCommand
}

/**
 * Orders added (and, with `image`, delivered with that image) in a data dir's store through the
 * real command handler, as `waybill serve` stores them: the image first, then the event.
 */
export async function seedOrders(dataDir: string, ids: readonly string[], image?: (typeof IMAGES)[number]): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  const metadata = { received_at: new Date().toISOString(), key_id: 'k', request_id: 'r', schema_version: SCHEMA_VERSION }
  try {
    for (const id of ids) {
      const run = (c: OrderCommand) => handleCommand(store, streamNameFor('sandbox', id), orderDecider, c, { metadata })
      await run(cmd('ORDER_ADD', { order_id: id, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' }))
      if (image === undefined) continue
      await blobs.put(image.bytes, image.sha256)
      await run(cmd('ORDER_COMPLETE', { order_id: id, address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', recipient: 'Jane Doe', event_date: '2025-05-02T00:00:00Z',
        pod: { sha256: image.sha256, media_type: 'image/png', bytes: image.bytes.length } }))
    }
  } finally {
    await store.close()
  }
}

/** Every event of a data dir's log, in position order. */
export async function logOf(dataDir: string): Promise<RecordedEvent[]> {
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  try {
    return await store.readAll({ maxCount: 1_000_000 })
  } finally {
    await store.close()
  }
}

/** `waybill projector` until a head covers `leaves` order events, then stopped as by SIGTERM. */
export async function project(env: Env, leaves: number): Promise<void> {
  const projector = startWaybill(['projector', '--status-every', '60', '--batch-size', '2'], { env })
  for (let tries = 0; tries < 150; tries += 1) {
    const heads = (await runWaybill(['audit', 'heads'], { env })).stdout.trim().split('\n').filter(Boolean)
    if (heads.length > 0 && (JSON.parse(heads.at(-1) ?? '{}') as { tree_size: number }).tree_size >= leaves) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const { code, stdout, stderr } = await projector.stop()
  if (code !== 0) throw new Error(`waybill projector did not end with 0:\n${stdout}${stderr}`)
}
