import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Where the live read model is. The first one is `<dataDir>/read-model.sqlite`; a rebuild writes
 * `read-model.<stamp>.sqlite` and then atomically replaces the pointer file `read-model.current`
 * (write + fsync + rename), which every reader and projector checks before it touches the model.
 */
export const DEFAULT_READ_MODEL_FILE = 'read-model.sqlite'
export const POINTER_FILE = 'read-model.current'

export interface Generation {
  readonly path: string
  /** Identity of the pointer file seen (inode:mtime); changes on every swap. */
  readonly marker: string
}

export function currentGeneration(dataDir: string): Generation {
  const pointer = join(dataDir, POINTER_FILE)
  const stat = statSync(pointer, { throwIfNoEntry: false })
  if (stat === undefined) return { path: join(dataDir, DEFAULT_READ_MODEL_FILE), marker: 'none' }
  const name = readFileSync(pointer, 'utf8').trim()
  return { path: join(dataDir, name), marker: `${stat.ino}:${stat.mtimeMs}` }
}

/** Cheap check (one stat) whether the pointer moved since `marker` was read. */
export function generationMarker(dataDir: string): string {
  const stat = statSync(join(dataDir, POINTER_FILE), { throwIfNoEntry: false })
  return stat === undefined ? 'none' : `${stat.ino}:${stat.mtimeMs}`
}

/** Points readers at `fileName` (in dataDir), durably and atomically. */
export function switchGeneration(dataDir: string, fileName: string): void {
  const pointer = join(dataDir, POINTER_FILE)
  const temporary = `${pointer}.${process.pid}.tmp`
  writeFileSync(temporary, `${fileName}\n`)
  fsyncPath(temporary)
  renameSync(temporary, pointer)
  fsyncPath(dataDir)
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
