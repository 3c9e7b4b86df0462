import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { serve } from './waybill-process.js'

// File modes are the process's: main.ts sets its umask, so `waybill serve` runs as a process here.

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-data-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Every path under `dir` with its permission bits. */
async function modes(dir: string): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [[dir, (await stat(dir)).mode & 0o777]]
  for (const name of await readdir(dir, { recursive: true })) out.push([name, (await stat(join(dir, name))).mode & 0o777])
  return out
}

t.test('the data dir is for the service user only: created so, and tightened at start when it is not', async (t) => {
  const dir = await dataDir(t)
  const first = await serve({ WAYBILL_DATA_DIR: dir })
  t.equal(await first.stop(), 0)
  const created = await modes(dir)
  t.ok(created.length > 5, 'the store, the read model, tls/ and the test key were made')
  for (const [path, mode] of created) t.ok(mode === 0o700 || mode === 0o600, `${path} is ${mode.toString(8)}`)

  await chmod(dir, 0o755)
  await chmod(join(dir, 'events.sqlite'), 0o644)
  // The blob store's folders are checked, not each image in them: the folder keeps others out.
  const folder = join(dir, 'blobs', 'ab')
  await mkdir(folder, { recursive: true, mode: 0o755 })
  await chmod(folder, 0o755)
  await writeFile(join(folder, 'cd'), 'image', { mode: 0o644 })
  const second = await serve({ WAYBILL_DATA_DIR: dir })
  t.teardown(() => second.stop())
  t.match(second.output(), /tightened the modes of 3 path\(s\) in .* \(directories 0700, files 0600\)/, 'the start says so')
  t.equal((await stat(dir)).mode & 0o777, 0o700)
  t.equal((await stat(join(dir, 'events.sqlite'))).mode & 0o777, 0o600)
  t.equal((await stat(folder)).mode & 0o777, 0o700, 'a blob folder')
  t.equal((await stat(join(folder, 'cd'))).mode & 0o777, 0o644, 'an image in it is not looked at')
})
