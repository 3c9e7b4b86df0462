/** A blob's bytes as read, with the identity its file had on disk then. */
export interface HeldBlob {
  readonly identity: string
  readonly chunks: readonly Buffer[]
  readonly size: number
}

/**
 * The bytes of the blobs read last, kept while their file keeps its identity on disk, within a
 * budget of bytes: the one read longest ago goes first. A blob read again (the same image asked
 * for by every client that shows an order) then costs neither disk reads nor memory: reading 5 MiB
 * into fresh buffers on every request made the garbage collector run a full collection for every
 * few dozen MiB served, each holding every request for milliseconds.
 */
export class HeldBlobs {
  readonly #blobs = new Map<string, HeldBlob>()
  readonly #maxBytes: number
  #bytes = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /** The bytes held for `sha256` when its file still has `identity`. */
  get(sha256: string, identity: string): HeldBlob | undefined {
    const blob = this.#blobs.get(sha256)
    if (blob?.identity !== identity) return undefined
    // Read again: the last to go.
    this.#blobs.delete(sha256)
    this.#blobs.set(sha256, blob)
    return blob
  }

  hold(sha256: string, blob: HeldBlob): void {
    this.drop(sha256)
    if (blob.size > this.#maxBytes) return
    this.#blobs.set(sha256, blob)
    this.#bytes += blob.size
    for (const name of this.#blobs.keys()) {
      if (this.#bytes <= this.#maxBytes) break
      this.drop(name)
    }
  }

  drop(sha256: string): void {
    const blob = this.#blobs.get(sha256)
    if (blob === undefined) return
    this.#blobs.delete(sha256)
    this.#bytes -= blob.size
  }
}
