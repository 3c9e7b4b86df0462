import { createHash, hash, randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { usageCounter, type BlobUsage } from './blob-usage.js'
import { makeFolder, renameFile, statOrNull, syncDirectory, writeNewFile } from './file-calls.js'
import { HeldBlobs } from './held-blobs.js'

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
   * the same: no write can leave all four as they were. The bytes of the blobs read last are
   * kept the same way (`FileBlobStoreOptions.heldBytes`), so a blob read again is not read again.
   */
  read(sha256: string): Promise<BlobRead>
  /**
   * Gives back the space of images no event names (docs/operations.md#compact), in two steps so
   * that it is safe while the service writes: a blob no event names and older than `graceMs` is
   * set aside (`<dir>/.orphans/`); one set aside for `graceMs` and still unnamed is deleted. A blob
   * set aside that an event names after all (one appended meanwhile) is put back, here or by the
   * first `read` that looks for it; `put` writes a blob again whenever it is not in place.
   */
  sweep(isNamed: (sha256: string) => boolean, options: SweepOptions): Promise<SweepReport>
  has(sha256: string): Promise<boolean>
  /**
   * Deletes a blob, in its place or set aside, durably (the directory fsynced): an erasure's
   * images (docs/personal-data.md#what-an-erasure-reaches). True when there was one to delete.
   */
  remove(sha256: string): Promise<boolean>
  /**
   * How many blobs are in place and their bytes (for /metrics; blobs set aside by `sweep` are not
   * counted). Counted from the directory on the first call and again when the last count is older
   * than five minutes (a sweep by another process, `waybill compact`, shows then), or after a sweep
   * of this store's; between counts this store's puts are added. A call while a later count runs
   * answers the last one.
   */
  usage?(): Promise<BlobUsage>
}

export interface SweepOptions {
  readonly graceMs: number
  readonly now?: () => number
  /** Counts what would happen, and changes nothing. */
  readonly dryRun?: boolean
}

export interface SweepReport {
  /** Blobs no event names, set aside now. */
  readonly setAside: number
  /** Blobs set aside earlier and still unnamed: deleted, with their bytes. */
  readonly deleted: number
  readonly deletedBytes: number
  /** Blobs set aside earlier that an event names: put back. */
  readonly restored: number
}

export interface FileBlobStoreOptions {
  /** The bytes of the blobs read last that are kept in memory (default 32 MiB: six of the largest images). */
  readonly heldBytes?: number
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
const HELD_BYTES = 32 * 1024 * 1024
/** Where blobs no event names wait before they are deleted. */
const ORPHANS = '.orphans'

/**
 * A BlobStore in a directory: `<dir>/<first two hex digits>/<other 62>`. A blob is written to a
 * temporary file, fsynced, renamed into place, and the directory fsynced, so after a crash a
 * blob is either whole or absent, and once put() resolves it survives power loss.
 */
export async function openFileBlobStore(dir: string, options: FileBlobStoreOptions = {}): Promise<BlobStore> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const pathOf = (sha256: string): { folder: string; file: string } => {
    if (!SHA256_HEX.test(sha256)) throw new RangeError(`not a sha256 hex digest: "${sha256}"`)
    const folder = join(dir, sha256.slice(0, 2))
    return { folder, file: join(folder, sha256.slice(2)) }
  }
  // Every put looks at the disk (one stat) rather than at a memory of what it wrote: another
  // process (`waybill compact`) may have set a blob aside meanwhile, and a put that trusted its
  // memory would let an event name a blob that is about to be deleted.
  const has = async (sha256: string): Promise<boolean> => (await statOrNull(pathOf(sha256).file))?.isFile() === true
  // Folders this process made or found and whose entry in `dir` it fsynced: a put into one skips
  // the mkdir and the fsync of `dir` (its open, fsync and close), once the 256 folders are
  // known. A folder is added only once its fsync is done, so a put that finds it made by a
  // concurrent put still in that fsync makes it durable itself. A folder removed behind this
  // store's back is made again by the first put that misses it.
  const durableFolders = new Set<string>()
  const makeDurable = async (folder: string): Promise<void> => {
    await makeFolder(folder)
    await syncDirectory(dir)
    durableFolders.add(folder)
  }
  const verified = new Map<string, string>()
  const counter = usageCounter(dir)
  const held = new HeldBlobs(options.heldBytes ?? HELD_BYTES)
  const orphans = join(dir, ORPHANS)
  const orphanOf = (sha256: string): string => join(orphans, sha256)
  /** Puts a blob set aside back in its place; false when it is not there either. */
  const restore = async (sha256: string): Promise<boolean> => {
    const { folder, file } = pathOf(sha256)
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 })
      await rename(orphanOf(sha256), file)
      await syncDirectory(folder)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
  }
  const openForRead = async (sha256: string) => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await open(pathOf(sha256).file, 'r')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0 || !await restore(sha256)) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
          throw error
        }
      }
    }
  }
  return {
    has,
    async remove(sha256) {
      const { folder, file } = pathOf(sha256)
      let removed = false
      for (const [path, parent] of [[file, folder], [orphanOf(sha256), orphans]] as const) {
        try {
          await rm(path)
          await syncDirectory(parent)
          removed = true
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        }
      }
      verified.delete(sha256)
      if (removed) counter.forget()
      return removed
    },
    usage: () => counter.usage(),
    async sweep(isNamed, options) {
      const now = options.now ?? Date.now
      const dryRun = options.dryRun === true
      let setAside = 0
      let deleted = 0
      let deletedBytes = 0
      let restored = 0
      for (const name of await readdir(orphans).catch(() => [] as string[])) {
        if (!SHA256_HEX.test(name)) continue
        const seen = await stat(orphanOf(name))
        if (isNamed(name)) {
          restored += 1
          if (!dryRun) await restore(name)
        } else if (now() - seen.mtimeMs >= options.graceMs) {
          deleted += 1
          deletedBytes += seen.size
          if (!dryRun) await rm(orphanOf(name), { force: true })
        }
      }
      for (const folder of await readdir(dir)) {
        if (!/^[0-9a-f]{2}$/.test(folder)) continue
        for (const rest of await readdir(join(dir, folder))) {
          const sha256 = `${folder}${rest}`
          if (!SHA256_HEX.test(sha256) || isNamed(sha256)) continue
          const file = join(dir, folder, rest)
          if (now() - (await stat(file)).mtimeMs < options.graceMs) continue
          setAside += 1
          if (dryRun) continue
          await mkdir(orphans, { recursive: true, mode: 0o700 })
          await rename(file, orphanOf(sha256))
          // Its time aside starts now: it is deleted only after another grace.
          const at = new Date(now())
          await utimes(orphanOf(sha256), at, at)
          verified.delete(sha256)
          held.drop(sha256)
        }
      }
      // What it set aside or put back is in the next count, which the next usage() makes and answers.
      if (!dryRun && setAside + restored > 0) counter.forget()
      return { setAside, deleted, deletedBytes, restored }
    },
    async read(sha256) {
      const handle = await openForRead(sha256)
      if (handle === null) return { status: 'missing' }
      try {
        const seen = await handle.stat({ bigint: true })
        const identity = `${seen.ino}:${seen.size}:${seen.mtimeNs}:${seen.ctimeNs}`
        const kept = held.get(sha256, identity)
        if (kept !== undefined) return { status: 'ok', chunks: kept.chunks, size: kept.size }
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
        held.hold(sha256, { identity, chunks, size })
        return { status: 'ok', chunks, size }
      } finally {
        await handle.close()
      }
    },
    async get(sha256) {
      const handle = await openForRead(sha256)
      if (handle === null) return null
      try {
        return await handle.readFile()
      } finally {
        await handle.close()
      }
    },
    async put(bytes, sha256) {
      const { folder, file } = pathOf(sha256)
      const actual = hash('sha256', bytes, 'hex')
      if (actual !== sha256) throw new RangeError(`bytes hash to ${actual}, not ${sha256}`)
      if (await has(sha256)) return
      if (!durableFolders.has(folder)) await makeDurable(folder)
      const temporary = join(folder, `.tmp-${randomUUID()}`)
      let left = true
      try {
        await writeNewFile(temporary, bytes).catch(async (error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
          durableFolders.delete(folder)
          await makeDurable(folder)
          await writeNewFile(temporary, bytes)
        })
        // Same content under the same name: a concurrent put of the same blob may win; either is
        // right (usage() then counts it twice until the next count).
        left = counter.adding(sha256, bytes.byteLength)
        await renameFile(temporary, file)
      } catch (error) {
        if (!left) counter.failed(sha256)
        await rm(temporary, { force: true })
        throw error
      }
      await syncDirectory(folder)
      if (left) counter.added(bytes.byteLength)
    },
  }
}
