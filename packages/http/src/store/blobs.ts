/** Content-addressed image storage (sha256), as the event store package provides it. */
export interface BlobStore {
  /** Resolves once the bytes are durable under their sha256. */
  put(bytes: Buffer, sha256: string): Promise<unknown>
}
