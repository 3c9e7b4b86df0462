import { createHash, hash, randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** Content-addressed storage for images: bytes are kept under their sha256. */
export interface BlobStore {
  /**
   * Stores `bytes` under `sha256` (lower-case hex) and resolves once they are durable.
   * Throws RangeError when the bytes do not hash to `sha256`. Storing what is already there is a no-op.
   */
  put(bytes: Uint8Array, sha256: string): Promise<void>
  /** The bytes stored under `sha256`, or null. */
  get(sha256: string): Promise<Buffer | null>
  /**
   * The bytes stored under `sha256` when they are what that name says: `missing` when there is no
   * such file, `changed` when its bytes no longer hash to its name. A file seen whole once is not
   * hashed again while its identity on disk (inode, size, modification and change times) stays
   * the same: no write can leave all four as they were.
   */
  read(sha256: string): Promise<BlobRead>
  has(sha256: string): Promise<boolean>
}

export type BlobRead =
  /** The bytes in pieces of at most 256 KiB, as they were read: to be written on as they are. */
  | { readonly status: 'ok'; readonly chunks: readonly Buffer[]; readonly size: number }
  | { readonly status: 'missing' | 'changed' }

const SHA256_HEX = /^[0-9a-f]{64}$/
/** Blobs whose bytes were checked, with the identity of the file then (at most this many). */
const VERIFIED_MAX = 10_000
/**
 * A blob is read, hashed and handed on in pieces this large: each piece is a turn of the event
 * loop, so a 5 MiB image holds other requests for a fraction of a millisecond at a time.
 */
const READ_CHUNK = 256 * 1024
/** Hashes of blobs known to be on disk, kept at most (64 bytes each). */
const KNOWN_PRESENT_MAX = 10_000

/**
 * A BlobStore in a directory: `<dir>/<first two hex digits>/<other 62>`. A blob is written to a
 * temporary file, fsynced, renamed into place, and the directory fsynced, so after a crash a
 * blob is either whole or absent, and once put() resolves it survives power loss.
 */
export async function openFileBlobStore(dir: string): Promise<BlobStore> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const pathOf = (sha256: string): { folder: string; file: string } => {
    if (!SHA256_HEX.test(sha256)) throw new RangeError(`not a sha256 hex digest: "${sha256}"`)
    const folder = join(dir, sha256.slice(0, 2))
    return { folder, file: join(folder, sha256.slice(2)) }
  }
  // Blobs this store has seen on disk or written: they are never removed or changed (their
  // names are their hashes), so a repeated image (a courier's logo on every proof of delivery)
  // costs no file-system call. Bounded; past the bound it starts again empty.
  const present = new Set<string>()
  const remember = (sha256: string): void => {
    if (present.size >= KNOWN_PRESENT_MAX) present.clear()
    present.add(sha256)
  }
  const has = async (sha256: string): Promise<boolean> => {
    if (present.has(sha256)) return true
    try {
      const found = (await stat(pathOf(sha256).file)).isFile()
      if (found) remember(sha256)
      return found
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
  }
  const verified = new Map<string, string>()
  return {
    has,
    async read(sha256) {
      let handle
      try {
        handle = await open(pathOf(sha256).file, 'r')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' }
        throw error
      }
      try {
        const seen = await handle.stat({ bigint: true })
        const identity = `${seen.ino}:${seen.size}:${seen.mtimeNs}:${seen.ctimeNs}`
        const known = verified.get(sha256) === identity
        const digest = known ? null : createHash('sha256')
        const chunks: Buffer[] = []
        let size = 0
        for (;;) {
          const chunk = Buffer.allocUnsafe(READ_CHUNK)
          const { bytesRead } = await handle.read(chunk, 0, READ_CHUNK, size)
          if (bytesRead === 0) break
          const piece = chunk.subarray(0, bytesRead)
          digest?.update(piece)
          chunks.push(piece)
          size += bytesRead
        }
        if (digest !== null) {
          if (digest.digest('hex') !== sha256) return { status: 'changed' }
          if (verified.size >= VERIFIED_MAX) verified.clear()
          verified.set(sha256, identity)
        }
        return { status: 'ok', chunks, size }
      } finally {
        await handle.close()
      }
    },
    async get(sha256) {
      try {
        return await readFile(pathOf(sha256).file)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw error
      }
    },
    async put(bytes, sha256) {
      const { folder, file } = pathOf(sha256)
      const actual = hash('sha256', bytes, 'hex')
      if (actual !== sha256) throw new RangeError(`bytes hash to ${actual}, not ${sha256}`)
      if (await has(sha256)) return
      await mkdir(folder, { recursive: true, mode: 0o700 })
      await fsyncDirectory(dir)
      const temporary = join(folder, `.tmp-${randomUUID()}`)
      try {
        const handle = await open(temporary, 'wx', 0o600)
        try {
          await handle.writeFile(bytes)
          await handle.sync()
        } finally {
          await handle.close()
        }
        // Same content under the same name: a concurrent put of the same blob may win; either is right.
        await rename(temporary, file)
      } catch (error) {
        await rm(temporary, { force: true })
        throw error
      }
      await fsyncDirectory(folder)
      remember(sha256)
    },
  }
}

async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
