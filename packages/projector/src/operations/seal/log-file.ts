import { renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { fsyncPath } from '../../generation/pointer.js'

/** The embedded store's file is open in another process (or connection): a running `waybill serve` or `waybill projector`. */
export class LogInUseError extends Error {
  constructor(readonly path: string) {
    super(`${path} is in use by another process (a running \`waybill serve\` or \`waybill projector\`?): stop the service first; nothing was changed`)
    this.name = 'LogInUseError'
  }
}

/**
 * Throws LogInUseError when any other connection has the SQLite file at `path` open: an exclusive
 * lock, asked for without waiting, is refused while another connection holds the file, even an
 * idle one (in WAL mode every open connection holds a shared lock), in this process or another.
 */
export function refuseLogInUse(path: string): void {
  const db = new Sqlite(path, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 0')
    db.pragma('locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new LogInUseError(path)
    throw error
  } finally {
    db.close()
  }
}

/**
 * Puts the sealed log in the live log's place: refused while the live file is open elsewhere;
 * the live file's journal (empty: its last connection closed) removed, then the sealed file
 * renamed over it, durably (the directory fsynced). A reader opening the file sees one log or
 * the other, never a mix.
 */
export function replaceLog(livePath: string, sealedPath: string): void {
  refuseLogInUse(livePath)
  for (const suffix of ['-wal', '-shm']) rmSync(`${livePath}${suffix}`, { force: true })
  fsyncPath(sealedPath)
  renameSync(sealedPath, livePath)
  fsyncPath(dirname(livePath))
}
