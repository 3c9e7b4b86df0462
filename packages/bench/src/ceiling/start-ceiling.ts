import { openMemoryEventStore, type BlobStore } from '@waybill/event-store'
import { startServer, type RunningServer, type ServerConfig } from '@waybill/http'
import { AuditLog, HeadStore, ReadModel } from '@waybill/projector'

/**
 * The ceiling's blob store. The app has decoded each image and checked its type, size and
 * sha256 before it asks for it to be stored, so dropping it here skips only the write and the
 * fsync; none is there to read back.
 */
export const dropImages: Pick<BlobStore, 'put' | 'read'> = { put: async () => undefined, read: async () => ({ status: 'missing' }) }

/**
 * The benchmark's ceiling: `startServer`, the same app on the same code paths as `waybill serve`
 * (HTTPS, key check, rate limit, body parsing, image decoding and checks, validation, decide),
 * except that every stream (orders and API keys) lives in this process's memory and images are
 * dropped once checked, so nothing waits for a disk. Not for production: it forgets everything
 * when it stops. `close()` stops the server, then the store.
 */
export async function startCeilingServer(config: ServerConfig): Promise<RunningServer> {
  const store = openMemoryEventStore()
  // The read routes are not benchmarked: an empty read model (opened only if asked) and no heads.
  const readModel = new ReadModel(config.dataDir)
  const log = new AuditLog(config.dataDir, { create: false })
  const heads = new HeadStore(':memory:')
  const server = await startServer(config, {
    store, blobs: dropImages, readModel, audit: { log, heads },
  })
  return {
    ...server,
    close: async () => {
      await server.close()
      readModel.close()
      log.close()
      heads.close()
      await store.close()
    },
  }
}
