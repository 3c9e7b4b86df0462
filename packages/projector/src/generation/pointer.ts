import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The files of one projection kept in generations (docs/design.md#read-model-generations-and-rebuild):
 * the first live file is `<stem>.sqlite`; a rebuild writes `<stem>.<time>-<pid>.sqlite` beside
 * it and then atomically replaces the pointer file `<stem>.current` (write + fsync + rename),
 * which every reader and writer checks before it touches the projection.
 */
export interface GenerationFiles {
  readonly stem: string
}

/** The orders read model. */
export const READ_MODEL_FILES: GenerationFiles = { stem: 'read-model' }
/** The audit log (docs/audit.md#the-audit-log-file). */
export const AUDIT_LOG_FILES: GenerationFiles = { stem: 'audit-log' }

export const DEFAULT_READ_MODEL_FILE = initialFile(READ_MODEL_FILES)
export const POINTER_FILE = pointerFile(READ_MODEL_FILES)

export interface Generation {
  readonly path: string
  /** Identity of the pointer file seen (inode:mtime); changes on every swap. */
  readonly marker: string
}

function initialFile(files: GenerationFiles): string {
  return `${files.stem}.sqlite`
}

function pointerFile(files: GenerationFiles): string {
  return `${files.stem}.current`
}

/** The live file of a projection (the orders read model unless `files` says otherwise). */
export function currentGeneration(dataDir: string, files: GenerationFiles = READ_MODEL_FILES): Generation {
  const pointer = join(dataDir, pointerFile(files))
  const stat = statSync(pointer, { throwIfNoEntry: false })
  if (stat === undefined) return { path: join(dataDir, initialFile(files)), marker: 'none' }
  const name = readFileSync(pointer, 'utf8').trim()
  return { path: join(dataDir, name), marker: `${stat.ino}:${stat.mtimeMs}` }
}

/** Cheap check (one stat) whether the pointer moved since `marker` was read. */
export function generationMarker(dataDir: string, files: GenerationFiles): string {
  const stat = statSync(join(dataDir, pointerFile(files)), { throwIfNoEntry: false })
  return stat === undefined ? 'none' : `${stat.ino}:${stat.mtimeMs}`
}

/** A new generation's file name: `<stem>.<UTC time>-<pid>.sqlite`, sorting by time. */
export function newGenerationName(files: GenerationFiles): string {
  return `${files.stem}.${new Date().toISOString().replace(/[-:.]/g, '')}-${process.pid}.sqlite`
}

/** Points readers at `fileName` (in dataDir), durably and atomically. */
export function switchGeneration(dataDir: string, files: GenerationFiles, fileName: string): void {
  const pointer = join(dataDir, pointerFile(files))
  const temporary = `${pointer}.${process.pid}.tmp`
  writeFileSync(temporary, `${fileName}\n`)
  fsyncPath(temporary)
  renameSync(temporary, pointer)
  fsyncPath(dataDir)
}

/**
 * Deletes a projection's generations other than `keep` (the new one and the one it replaced,
 * which a reader may still hold): a third one back is no reader's any more.
 */
export function removeOldGenerations(dataDir: string, files: GenerationFiles, keep: readonly string[]): void {
  const pattern = new RegExp(`^${files.stem}(\\.\\d{8}T\\d+Z-\\d+)?\\.sqlite$`)
  for (const name of readdirSync(dataDir)) {
    const base = name.replace(/-(wal|shm)$/, '')
    if (!pattern.test(base) || keep.includes(base)) continue
    rmSync(join(dataDir, name), { force: true })
  }
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
