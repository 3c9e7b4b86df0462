import { chmod, lstat, readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'

export interface TightenOptions {
  /**
   * Whether each image in the blob store is checked too (default true: a restore). `waybill serve`
   * checks the blob store's folders and not the images in them, one per order: their folders,
   * 0700, already keep everyone else from them, and reading every image's mode at every start
   * took a minute at 10,000,000 events (2,500,000 images, `pnpm bench:scale`).
   */
  readonly blobFiles?: boolean
}

/**
 * The data directory holds the event log, the read model, images and keys: readable by the
 * service's user only. Every directory in it becomes 0700 and every file 0600 (links are left
 * alone; with `blobFiles: false`, the images in the blob store's folders are not looked at, their
 * folders are), and the paths whose mode had to change are returned, so the start can say so: a
 * directory made by an older version, or copied in by hand, is found and fixed at every start.
 */
export async function tightenDataDir(dataDir: string, options: TightenOptions = {}): Promise<string[]> {
  const changed: string[] = []
  const blobs = join(dataDir, 'blobs')
  const visit = async (path: string): Promise<void> => {
    const stat = await lstat(path)
    if (stat.isSymbolicLink()) return
    const wanted = stat.isDirectory() ? 0o700 : 0o600
    if ((stat.mode & 0o777) !== wanted) {
      await chmod(path, wanted)
      changed.push(path)
    }
    if (!stat.isDirectory() || (options.blobFiles === false && dirname(path) === blobs)) return
    for (const name of await readdir(path)) await visit(join(path, name))
  }
  // Not a directory (a mistyped path naming a file): not ours to change; the start will say why.
  if ((await lstat(dataDir)).isDirectory()) await visit(dataDir)
  return changed
}
