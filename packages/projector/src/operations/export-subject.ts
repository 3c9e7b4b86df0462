import { mkdir, writeFile } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { evolveView, streamNameFor, upcastOrderEvent, type OrderView } from '@waybill/domain'
import type { BlobStore, EventStore } from '@waybill/event-store'
import { imageContext, openImage, openOrderEvent, type SubjectKeyStore } from '@waybill/personal-data'

export interface ExportOptions {
  readonly store: EventStore
  readonly keys: SubjectKeyStore
  readonly blobs: Pick<BlobStore, 'get'>
  readonly now?: () => Date
}

/** One file written, with its hash, as the manifest lists it. */
export interface ExportedFile {
  readonly path: string
  readonly bytes: number
  readonly sha256: string
}

export interface ExportReport {
  readonly orders: readonly string[]
  readonly files: readonly ExportedFile[]
}

const EXTENSION: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' }

/**
 * Everything Waybill holds about one customer of an account, for an access request
 * (docs/personal-data.md#subject-access): into `dir`, one JSON file per order (the order as it
 * stands, and every event with its fields as the courier sent them, opened with the order's key),
 * its images as files, and `manifest.json` last, naming every file with its sha256. An order
 * already erased is not the customer's any more: the key store no longer links it to them.
 */
export async function exportSubject(options: ExportOptions, account: string, customer: string, dir: string): Promise<ExportReport> {
  const orderIds = await options.keys.ordersOf(account, customer)
  await mkdir(join(dir, 'orders'), { recursive: true, mode: 0o700 })
  const files: ExportedFile[] = []
  const write = async (path: string, bytes: Buffer): Promise<void> => {
    await writeFile(join(dir, path), bytes, { mode: 0o600 })
    files.push({ path, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
  }
  for (const orderId of orderIds) {
    const stream = streamNameFor(account, orderId)
    const key = options.keys.get(account, orderId)
    const name = encodeURIComponent(orderId)
    let view: OrderView | null = null
    const events = []
    for (const recorded of await options.store.readStream(stream)) {
      const current = upcastOrderEvent(recorded)
      if (current === null) continue
      const opened = openOrderEvent(stream, current, key)
      view = evolveView(view, opened)
      events.push({
        event_id: recorded.id, type: recorded.type, revision: recorded.revision,
        received_at: recorded.metadata.received_at ?? null, fields: opened.data, erased: opened.erased,
      })
      if (current.type !== 'OrderCompleted' || key === null || key === 'erased') continue
      for (const image of ['pod', 'signature'] as const) {
        const ref = current.data[image]
        const sealed = ref === undefined ? null : await options.blobs.get(ref.blob)
        if (ref === undefined || sealed === null) continue
        await write(`orders/${name}.${image}.${EXTENSION[ref.media_type] ?? 'bin'}`, openImage(key, imageContext(stream), sealed))
      }
    }
    await write(`orders/${name}.json`, Buffer.from(`${JSON.stringify({ account, order_id: orderId, order: view, events }, null, 2)}\n`))
  }
  const manifest = {
    account, customer, exported_at: (options.now ?? (() => new Date()))().toISOString(), orders: orderIds, files,
  }
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
  return { orders: orderIds, files }
}
