import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { canonicalJson, deliveryImages, SCHEMA_VERSION, streamNameFor, toCommand } from '@waybill/domain'
import { categoryOf, hashEvent } from '@waybill/event-store'
import { orderSealer, type KeyLookup, type OrderKey } from '@waybill/personal-data'
import { accountOf, addedAt, dateAt, deliveriesOf, orderIdOf, PER_ORDER } from './shape.js'

/** One chunk of orders to turn into rows: orders `from` to `to` (exclusive), with their keys in that order. */
export interface ChunkRequest {
  readonly from: number
  readonly to: number
  readonly keys: ReadonlyArray<{ readonly id: string; readonly secret: Uint8Array }>
  readonly blobDir: string
}

/** The values of one `events` row, in the column order of the bench's INSERT. */
export type EventRow = readonly [string, string, number, string, string, string, string, string, number]

const STORED_TYPE = { ORDER_ADD: 'OrderAdded', ORDER_UPDATE: 'OrderUpdated', ORDER_COMPLETE: 'OrderCompleted', ORDER_CANCELED: 'OrderCanceled' } as const

/**
 * The rows of a chunk of orders, in the order they arrive: the orders' first events, then
 * their second ones, and so on, each sealed with its order's key and hash-chained to its
 * order's previous event with the store's own `hashEvent`, as the store's writer does. The sealed
 * photos are written into the blob store's layout (`<xx>/<other 62 hex digits>`) without the
 * fsync a `put` makes: a load that stops is run again, and the build is checked by `verify`.
 */
export function chunkRows(request: ChunkRequest): EventRow[] {
  const made = new Set<string>()
  const now = Date.now()
  const byRevision: EventRow[][] = Array.from({ length: PER_ORDER }, () => [])
  for (let n = request.from; n < request.to; n += 1) {
    const given = request.keys[n - request.from]
    if (given === undefined) throw new Error(`no key for order ${n}`)
    const key: OrderKey = { id: given.id, secret: Buffer.from(given.secret) }
    const account = accountOf(n)
    const stream = streamNameFor(account, orderIdOf(n))
    const sealer = orderSealer(key, stream)
    let previous: string | null = null
    for (const [revision, valid] of deliveriesOf(n).entries()) {
      for (const blob of sealer.blobs(deliveryImages(valid))) {
        const folder = join(request.blobDir, blob.sha256.slice(0, 2))
        if (!made.has(folder)) {
          mkdirSync(folder, { recursive: true, mode: 0o700 })
          made.add(folder)
        }
        writeFileSync(join(folder, blob.sha256.slice(2)), blob.bytes)
      }
      const command = toCommand(account, valid, sealer)
      const data = command.data as unknown as Record<string, unknown>
      const metadata = {
        received_at: dateAt(addedAt(n) + revision * 3600 + 2), key_id: `key-${account}`, request_id: `req-${n.toString(36)}-${revision}`,
        schema_version: SCHEMA_VERSION, prev_hash: previous,
      }
      const type = STORED_TYPE[valid.event]
      const hash = hashEvent({ streamName: stream, revision, id: command.eventId, type, data, metadata })
      byRevision[revision]?.push([stream, categoryOf(stream), revision, command.eventId, type, canonicalJson(data), canonicalJson(metadata), hash, now])
      previous = hash
    }
  }
  return byRevision.flat()
}

/**
 * Deletes the sealed photos of orders `from` on, up to the first order with no key: what a load
 * cut back leaves in the blob store (its chunks ahead had their keys made and photos written).
 * Returns how many orders it went through.
 */
export function dropPhotosFrom(from: number, keyOf: (account: string, orderId: string) => KeyLookup, blobDir: string): number {
  for (let n = from; ; n += 1) {
    const key = keyOf(accountOf(n), orderIdOf(n))
    if (key === null || key === 'erased') return n - from
    const sealer = orderSealer(key, streamNameFor(accountOf(n), orderIdOf(n)))
    for (const blob of deliveriesOf(n).flatMap((valid) => sealer.blobs(deliveryImages(valid)))) {
      rmSync(join(blobDir, blob.sha256.slice(0, 2), blob.sha256.slice(2)), { force: true })
    }
  }
}
