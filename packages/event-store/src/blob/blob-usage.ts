import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** How many blobs a blob store holds in place, and their bytes. */
export interface BlobUsage {
  readonly blobs: number
  readonly bytes: number
}

/** How old a count may be before the directory is counted again. */
const RECOUNT_MS = 5 * 60_000

/**
 * The running total behind `BlobStore.usage()`: counted from the directory, then kept by the
 * store's puts until the count is stale. A scrape then never walks the images, and a sweep by
 * another process (which this one cannot see) shows within five minutes.
 */
export function usageCounter(dir: string, now: () => number = Date.now) {
  let usage: { blobs: number; bytes: number } | null = null
  let countedAt = 0
  let counting: Promise<BlobUsage> | null = null
  // Puts that land while a count runs: skipped by it and added apart, so none counts twice.
  const putWhileCounting = new Map<string, number>()
  const count = (): Promise<BlobUsage> => {
    counting ??= countBlobs(dir, putWhileCounting).then((counted) => {
      usage = counted
      countedAt = now()
      return { ...counted }
    }).finally(() => {
      counting = null
      putWhileCounting.clear()
    })
    return counting
  }
  return {
    usage(): Promise<BlobUsage> {
      if (usage === null) return count()
      // Stale: counted again behind this answer; a count that fails is tried by the next call.
      if (now() - countedAt >= RECOUNT_MS) count().catch(() => undefined)
      return Promise.resolve({ ...usage })
    },
    /** The next usage() counts the directory again, and answers that count. */
    forget(): void {
      usage = null
    },
    /**
     * Before a put's rename: a count under way then skips the blob and counts it from here.
     * Answers whether the blob is left to `added` (no count was under way).
     */
    adding(sha256: string, bytes: number): boolean {
      if (counting === null) return true
      putWhileCounting.set(sha256, bytes)
      return false
    },
    /** A put that `adding` noted did not land. */
    failed(sha256: string): void {
      putWhileCounting.delete(sha256)
    },
    added(bytes: number): void {
      if (usage === null) return
      usage.blobs += 1
      usage.bytes += bytes
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
