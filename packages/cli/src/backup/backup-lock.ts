import { open, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'

const LOCK_FILE = '.backup-lock'

/**
 * Holds `DIR/.backup-lock` (this process's pid) while a backup writes into DIR: two backups into
 * one directory at once (a cron job that overlaps itself) would both write the next manifest. A
 * lock left by a process that no longer runs (a crash) is taken over.
 */
export async function lockBackupDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE)
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(path, 'wx', 0o600)
      await handle.writeFile(String(process.pid))
      await handle.close()
      return () => rm(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
      const holder = Number(await readFile(path, 'utf8').catch(() => ''))
      if (Number.isInteger(holder) && holder > 0 && running(holder)) {
        throw new Error(`another backup (pid ${holder}) is writing into ${dir}; wait for it to end`, { cause: error })
      }
      await rm(path, { force: true })
    }
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
