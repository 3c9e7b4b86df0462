import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...await filesUnder(path))
    else found.push(path)
  }
  return found
}

/**
 * The files under `dir` (but those `skip` says, by their path below it) that hold any of `values`,
 * and which value: how the erasure and seal tests look for a personal value's bytes anywhere.
 */
export async function holding(dir: string, values: readonly Buffer[], skip: (path: string) => boolean = () => false): Promise<string[]> {
  const hits: string[] = []
  for (const file of await filesUnder(dir)) {
    if (skip(file.slice(dir.length))) continue
    const bytes = await readFile(file)
    for (const value of values) if (bytes.includes(value)) hits.push(`${file.slice(dir.length)}: ${value.toString('latin1').slice(0, 30)}`)
  }
  return hits
}
