/** Content-addressed image storage (sha256), as the event store package provides it. */
export interface BlobStore {
  /** Resolves once the bytes are durable under their sha256. */
  put(bytes: Buffer, sha256: string): Promise<unknown>
}

export interface DecodedImage {
  readonly sha256: string
  readonly bytes: Buffer
}

/** Every decoded image inside a validated delivery (pod and signature of ORDER_COMPLETE). */
export function decodedImagesOf(value: unknown): DecodedImage[] {
  const found: DecodedImage[] = []
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > 4 || Buffer.isBuffer(node)) return
    const candidate = node as { sha256?: unknown; bytes?: unknown }
    if (typeof candidate.sha256 === 'string' && Buffer.isBuffer(candidate.bytes)) {
      found.push({ sha256: candidate.sha256, bytes: candidate.bytes })
      return
    }
    for (const child of Object.values(node)) visit(child, depth + 1)
  }
  visit(value, 0)
  return found
}
