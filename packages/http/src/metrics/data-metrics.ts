import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Registry } from 'prom-client'
import type { BlobStore, BlobUsage } from '@waybill/event-store'
import { AUDIT_LOG_FILES, HEADS_FILE, READ_MODEL_FILES } from '@waybill/projector'
import { freeSpace, type FreeSpace } from '../readiness/free-space.js'
import { registerScraped } from './scraped.js'

export interface DataMetricsOptions {
  readonly dataDir: string
  /** The image store, when it can say how much it holds (`openFileBlobStore`'s can). */
  readonly blobs?: Pick<BlobStore, 'usage'>
}

/** Which part of the data directory a file belongs to, by its name (with SQLite's -wal and -shm). */
function partOf(name: string): string | null {
  const base = name.replace(/-(wal|shm)$/, '')
  if (base === 'events.sqlite') return 'events'
  if (base === HEADS_FILE) return 'audit_heads'
  // Every generation: a rebuild keeps the one it replaced until the next.
  if (base.startsWith(`${READ_MODEL_FILES.stem}.`) && base.endsWith('.sqlite')) return 'read_model'
  if (base.startsWith(`${AUDIT_LOG_FILES.stem}.`) && base.endsWith('.sqlite')) return 'audit_log'
  return null
}

/**
 * What the data directory holds and how much room is left, read at scrape time and cheaply: one
 * statfs, one listing of the data directory (a dozen names) and a stat per store file. The
 * images are not walked on each scrape: the image store counts them once and then follows its
 * own puts (`BlobStore.usage`).
 */
export function registerDataMetrics(registry: Registry, options: DataMetricsOptions): void {
  const { dataDir, blobs } = options
  const images = imagesNow(blobs)
  // One statfs per scrape for both metrics: a scrape asks them at once, so they share the call in flight.
  let asking: Promise<FreeSpace | null> | null = null
  const space = (): Promise<FreeSpace | null> => {
    asking ??= freeSpace(dataDir).catch(() => null).finally(() => { asking = null })
    return asking
  }
  registerScraped(registry, {
    name: 'waybill_data_dir_free_bytes', help: 'Bytes still free (for an unprivileged writer) on the file system of the data directory', type: 'gauge',
    read: async () => {
      const found = await space()
      return found === null ? [] : [{ value: found.free }]
    },
  })
  registerScraped(registry, {
    name: 'waybill_data_dir_size_bytes', help: 'Size of the file system of the data directory', type: 'gauge',
    read: async () => {
      const found = await space()
      return found === null ? [] : [{ value: found.size }]
    },
  })
  registerScraped(registry, {
    name: 'waybill_data_bytes',
    help: 'Bytes on disk by part of the data directory: events (the embedded event store), read_model and audit_log (every generation kept), audit_heads, images',
    type: 'gauge',
    read: async () => {
      const sizes = new Map<string, number>()
      const names = await readdir(dataDir).catch(() => [])
      await Promise.all(names.map(async (name) => {
        const part = partOf(name)
        if (part === null) return
        const size = (await stat(join(dataDir, name)).catch(() => null))?.size ?? 0
        sizes.set(part, (sizes.get(part) ?? 0) + size)
      }))
      const counted = await images()
      if (counted !== null) sizes.set('images', counted.bytes)
      return [...sizes].sort(([a], [b]) => a.localeCompare(b)).map(([part, value]) => ({ labels: { part }, value }))
    },
  })
  if (blobs?.usage !== undefined) {
    registerScraped(registry, {
      name: 'waybill_images_stored', help: 'Images in the image store (each stored once, under its hash)', type: 'gauge',
      read: async () => {
        const counted = await images()
        return counted === null ? [] : [{ value: counted.blobs }]
      },
    })
  }
}

/** How long a scrape waits for the images' count: the first one, over many images, takes longer (no sample until then). */
const COUNT_WAIT_MS = 100

/** The image store's usage when known; the first call starts the count, which later scrapes find done. */
function imagesNow(blobs: Pick<BlobStore, 'usage'> | undefined): () => Promise<BlobUsage | null> {
  const usage = blobs?.usage?.bind(blobs)
  if (usage === undefined) return () => Promise.resolve(null)
  return async () => {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), COUNT_WAIT_MS) })
    try {
      return await Promise.race([usage().catch(() => null), late])
    } finally {
      clearTimeout(timer)
    }
  }
}
