import { randomUUID } from 'node:crypto'
import { open, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/**
 * Writes `bytes` to `path` so that after a crash the file is either whole or absent: a temporary
 * file beside it, fsynced, renamed into place, and the directory fsynced.
 */
export async function writeDurably(path: string, bytes: Uint8Array | string): Promise<void> {
  const temporary = join(dirname(path), `.tmp-${randomUUID()}`)
  try {
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(bytes)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Makes a directory's entries (a rename, a new file) durable. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
