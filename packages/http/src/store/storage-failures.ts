import { StoreUnavailableError, type BlobStore } from '@waybill/event-store'

/** File-system errors that mean "no room or no disk right now", not "this request is wrong". */
const UNAVAILABLE = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EMFILE', 'ENFILE'])

/**
 * Image writes that fail for lack of space or a failing disk become StoreUnavailableError, so
 * they answer a retryable 503 like the event store's own SQLITE_FULL, not a bare 500. Every
 * failure is told to `onFailure` too (readiness notes a full disk).
 */
export function blobsWithStorageFailures(inner: Pick<BlobStore, 'put'>, onFailure: (error: unknown) => void = () => undefined): Pick<BlobStore, 'put'> {
  return {
    put: async (bytes, sha256) => {
      try {
        await inner.put(bytes, sha256)
      } catch (error) {
        onFailure(error)
        const code = (error as NodeJS.ErrnoException | null)?.code
        if (code !== undefined && UNAVAILABLE.has(code)) {
          throw new StoreUnavailableError(`image storage: ${code}`, { cause: error })
        }
        throw error
      }
    },
  }
}
