import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import Sqlite from 'better-sqlite3'

const execFileAsync = promisify(execFile)

/** Bytes the given directories take on disk (their blocks, as `du` counts them: a small file costs a whole block). */
export async function bytesOnDisk(dirs: readonly string[]): Promise<number> {
  const { stdout } = await execFileAsync('du', ['-s', '-B1', ...dirs])
  return stdout.trim().split('\n').reduce((sum, line) => sum + Number(line.split('\t')[0]), 0)
}

/** The events in a SQLite store's log: positions are dense, so the last one counts them. */
export function eventsIn(path: string): number {
  const db = new Sqlite(path, { readonly: true })
  try {
    return (db.prepare('SELECT max(position) AS n FROM events').get() as { n: number | null }).n ?? 0
  } finally {
    db.close()
  }
}
