import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** `<dataDir>/test-api-key`: the sandbox test key, readable by the operator only. */
export function testKeyPath(dataDir: string): string {
  return join(dataDir, 'test-api-key')
}

/** `<dataDir>/replaced-keys/<key id>`: a replacement issued automatically, kept for the operator. */
export function replacementKeyPath(dataDir: string, keyId: string): string {
  return join(dataDir, 'replaced-keys', keyId)
}

/** Writes a secret with mode 0600 through a temporary file, so a reader never sees half a key. */
export async function writeSecretFile(path: string, secret: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, `${secret}\n`, { mode: 0o600 })
  await rename(temporary, path)
}

/** A secret file's content without the trailing newline; null when there is no such file. */
export async function readSecretFile(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}
