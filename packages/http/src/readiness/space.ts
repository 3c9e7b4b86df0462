import { open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { StreamStore } from '@waybill/event-store'
import { freeSpace } from './free-space.js'

/** Below this many free bytes the next write is as good as failed. */
const FLOOR_BYTES = 1 << 20
/** What the probe writes (and removes) to see whether room came back after writes failed for lack of it. */
const PROBE_BYTES = 1 << 20

const OUT_OF_SPACE = /\b(SQLITE_FULL|ENOSPC|EDQUOT)\b/

/** Whether `error` (or a cause of it) says the disk is full: SQLite's SQLITE_FULL, ENOSPC, EDQUOT. */
export function isOutOfSpace(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code
    if ((typeof code === 'string' && OUT_OF_SPACE.test(code)) || OUT_OF_SPACE.test(e.message)) return true
  }
  return false
}

export interface SpaceOptions {
  readonly floorBytes?: number
  readonly probeBytes?: number
}

/**
 * Whether writes fail for lack of space (readiness's "disk full"). Two signals: the file system of
 * the data directory has less than `floorBytes` free (statfs), or an append or image write failed
 * for lack of space and no append has succeeded since. The second is not left to the next
 * append, which may never come: a balancer stops sending requests to an instance that is not
 * ready. Instead, while it holds, each check writes `probeBytes` to a file in the data directory
 * and removes it; once that succeeds, room has come back and the instance is ready again.
 */
export function spaceWatch(dataDir: string, options: SpaceOptions = {}) {
  const floor = options.floorBytes ?? FLOOR_BYTES
  const probeBytes = options.probeBytes ?? PROBE_BYTES
  let failed = false
  const noted = (error: unknown): void => {
    if (error === undefined) failed = false
    else if (isOutOfSpace(error)) failed = true
  }
  return {
    /** The store with each append's outcome noted: a success clears a full disk, a failure for lack of space sets it. */
    appends(inner: StreamStore): StreamStore {
      return {
        readStream: (streamName, readOptions) => inner.readStream(streamName, readOptions),
        appendToStream: async (streamName, events, appendOptions) => {
          try {
            const result = await inner.appendToStream(streamName, events, appendOptions)
            noted(undefined)
            return result
          } catch (error) {
            noted(error ?? new Error('append failed'))
            throw error
          }
        },
      }
    },
    /**
     * Notes an image write's failure for lack of space. A success is not noted: a blob already
     * stored is a success that wrote nothing.
     */
    imageFailed(error: unknown): void {
      if (isOutOfSpace(error)) failed = true
    },
    /** Whether writes fail, or are about to, for lack of space. */
    async full(): Promise<boolean> {
      // A file system that cannot be asked (statfs failed) is judged by the writes alone.
      const free = await freeSpace(dataDir).then((space) => space.free, () => null)
      if (free !== null && free < floor) return true
      if (!failed) return false
      if (await probe(dataDir, probeBytes)) failed = false
      return failed
    },
  }
}

export type SpaceWatch = ReturnType<typeof spaceWatch>

/** Writes `bytes` zero bytes to a new file in `dir` and removes it; true when the write fit. */
async function probe(dir: string, bytes: number): Promise<boolean> {
  const path = join(dir, `.space-probe-${process.pid}`)
  try {
    const handle = await open(path, 'w', 0o600)
    try {
      // writeFile writes the whole buffer or fails; a single write may stop short of a full disk without an error.
      await handle.writeFile(Buffer.alloc(bytes))
    } finally {
      await handle.close()
    }
    return true
  } catch {
    return false
  } finally {
    await rm(path, { force: true })
  }
}
