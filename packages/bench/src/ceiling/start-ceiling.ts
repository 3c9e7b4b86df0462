import { openMemoryEventStore } from '@waybill/event-store'
import { startServer, type BlobStore, type RunningServer, type ServerConfig } from '@waybill/http'

// The ingress has decoded each image and checked its type, size and sha256 before it asks for it
// to be stored, so dropping it here skips only the write and the fsync.
const dropImages: BlobStore = { put: async () => undefined }

/**
 * The benchmark's ceiling: `startServer`, the same app on the same code paths as `waybill serve`
 * (HTTPS, key check, rate limit, body parsing, image decoding and checks, validation, decide),
 * except that every stream (orders and API keys) lives in this process's memory and images are
 * dropped once checked, so nothing waits for a disk. Not for production: it forgets everything
 * when it stops. `close()` stops the server, then the store.
 */
export async function startCeilingServer(config: ServerConfig): Promise<RunningServer> {
  const store = openMemoryEventStore()
  const server = await startServer(config, { store, blobs: dropImages })
  return {
    ...server,
    close: async () => {
      await server.close()
      await store.close()
    },
  }
}
