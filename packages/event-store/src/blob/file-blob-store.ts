import { hash, randomUUID } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
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
  /**
   * How many blobs are stored and their bytes (for /metrics): counted once, from the directory,
   * on the first call, then kept by this store's puts. Another process's puts are not seen
   * until the next open.
   */
  usage?(): Promise<BlobUsage>
}

export interface BlobUsage {
  readonly blobs: number
  readonly bytes: number
}

export type BlobRead =
  | { readonly status: 'ok'; readonly bytes: Buffer }
  | { readonly status: 'missing' | 'changed' }

const SHA256_HEX = /^[0-9a-f]{64}$/
/** Blobs whose bytes were checked, with the identity of the file then (at most this many). */
const VERIFIED_MAX = 10_000
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
  // The running total for usage(): null until the first call has counted the directory. Puts
  // that land while it counts are noted apart and skipped by the count, so none counts twice.
  let usage: { blobs: number; bytes: number } | null = null
  let counting: Promise<BlobUsage> | null = null
  const putWhileCounting = new Map<string, number>()
  // Before the rename: a count that reads the folder after it then skips the blob, and counts it
  // from here. Answers whether the blob is left to `added` (no count was under way).
  const adding = (sha256: string, bytes: number): boolean => {
    if (usage !== null || counting === null) return true
    putWhileCounting.set(sha256, bytes)
    return false
  }
  const added = (bytes: number): void => {
    if (usage === null) return
    usage.blobs += 1
    usage.bytes += bytes
  }
  return {
    has,
    usage() {
      if (usage !== null) return Promise.resolve({ ...usage })
      counting ??= countBlobs(dir, putWhileCounting).then((counted) => {
        usage = counted
        putWhileCounting.clear()
        return { ...counted }
      }, (error: unknown) => {
        counting = null
        putWhileCounting.clear()
        throw error
      })
      return counting
    },
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
        const bytes = await handle.readFile()
        if (verified.get(sha256) === identity) return { status: 'ok', bytes }
        if (hash('sha256', bytes, 'hex') !== sha256) return { status: 'changed' }
        if (verified.size >= VERIFIED_MAX) verified.clear()
        verified.set(sha256, identity)
        return { status: 'ok', bytes }
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
      let left = true
      try {
        const handle = await open(temporary, 'wx', 0o600)
        try {
          await handle.writeFile(bytes)
          await handle.sync()
        } finally {
          await handle.close()
        }
        // Same content under the same name: a concurrent put of the same blob may win; either is
        // right (usage() then counts it twice until the next open).
        left = adding(sha256, bytes.byteLength)
        await rename(temporary, file)
      } catch (error) {
        if (!left) putWhileCounting.delete(sha256)
        await rm(temporary, { force: true })
        throw error
      }
      await fsyncDirectory(folder)
      remember(sha256)
      if (left) added(bytes.byteLength)
    },
  }
}

/** Blobs in `dir` and their bytes, one folder at a time, leaving out temporary files and `skip`'s (counted apart). */
async function countBlobs(dir: string, skip: ReadonlyMap<string, number>): Promise<{ blobs: number; bytes: number }> {
  let blobs = 0
  let bytes = 0
  for (const folder of await readdir(dir, { withFileTypes: true })) {
    if (!folder.isDirectory() || !/^[0-9a-f]{2}$/.test(folder.name)) continue
    const names = (await readdir(join(dir, folder.name))).filter((name) => !name.startsWith('.') && !skip.has(folder.name + name))
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, folder.name, name)).catch(() => null))?.size))
    for (const size of sizes) {
      if (size === undefined) continue
      blobs += 1
      bytes += size
    }
  }
  for (const size of skip.values()) {
    blobs += 1
    bytes += size
  }
  return { blobs, bytes }
}

async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
