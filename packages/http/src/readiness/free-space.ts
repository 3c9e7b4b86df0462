import { statfs } from 'node:fs/promises'

export interface FreeSpace {
  /** Bytes an unprivileged process may still write (the blocks kept for root left out). */
  readonly free: number
  /** Size of the file system. */
  readonly size: number
}

/** The free space and size of the file system holding `dir` (one statfs call). */
export async function freeSpace(dir: string): Promise<FreeSpace> {
  const stats = await statfs(dir)
  return { free: stats.bavail * stats.bsize, size: stats.blocks * stats.bsize }
}
