import { createHash } from 'node:crypto'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { openFileBlobStore } from '../../src/index.js'
import { tempDir } from '../store-fixture.js'

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

t.test('put stores bytes under their hash; get and has find them', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const bytes = Buffer.from('\x89PNG fake image bytes')
  const digest = sha(bytes)
  t.equal(await blobs.has(digest), false)
  t.equal(await blobs.get(digest), null)
  await blobs.put(bytes, digest)
  t.equal(await blobs.has(digest), true)
  t.same(await blobs.get(digest), bytes)
  t.same(await readFile(join(dir, digest.slice(0, 2), digest.slice(2))), bytes, 'laid out as <aa>/<rest>')
  await blobs.put(new Uint8Array(bytes), digest)
  t.same(await readdir(join(dir, digest.slice(0, 2))), [digest.slice(2)], 'a second put changes nothing, leaves no temp file')
})

t.test('concurrent puts of the same blob all succeed', async (t) => {
  const blobs = await openFileBlobStore(join(await tempDir(t), 'blobs'))
  const bytes = Buffer.alloc(64 * 1024, 7)
  await Promise.all(Array.from({ length: 10 }, () => blobs.put(bytes, sha(bytes))))
  t.same(await blobs.get(sha(bytes)), bytes)
})

t.test('bytes that do not match the hash, or a malformed hash, are refused', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  await t.rejects(blobs.put(Buffer.from('a'), sha(Buffer.from('b'))), RangeError)
  await t.rejects(blobs.put(Buffer.from('a'), '../../etc/passwd'), RangeError)
  await t.rejects(blobs.get('ABC'), RangeError)
  t.same(await readdir(dir), [], 'nothing was written')
})

t.test('a blob another process wrote is found: only blobs seen on disk are remembered, never an absence', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const here = await openFileBlobStore(dir)
  const elsewhere = await openFileBlobStore(dir)
  const bytes = Buffer.from('proof of delivery')
  t.equal(await here.has(sha(bytes)), false)
  await elsewhere.put(bytes, sha(bytes))
  t.equal(await here.has(sha(bytes)), true, 'the earlier "absent" was not kept')
  await here.put(bytes, sha(bytes))
  t.same(await readdir(join(dir, sha(bytes).slice(0, 2))), [sha(bytes).slice(2)], 'the put found it and wrote nothing')
  await t.rejects(here.put(Buffer.from('other bytes'), sha(bytes)), RangeError, 'a remembered hash still checks the bytes')
})

t.test('read: the bytes only while they hash to their name, checked once per file on disk', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const bytes = Buffer.from('a signature')
  const name = sha(bytes)
  t.same(await blobs.read(name), { status: 'missing' })
  await blobs.put(bytes, name)
  const whole = (read: Awaited<ReturnType<typeof blobs.read>>) => read.status === 'ok' ? { status: read.status, bytes: Buffer.concat(read.chunks), size: read.size } : read
  t.same(whole(await blobs.read(name)), { status: 'ok', bytes, size: bytes.length })
  t.same(whole(await blobs.read(name)), { status: 'ok', bytes, size: bytes.length }, 'read again (its file unchanged: not hashed again)')
  const file = join(dir, name.slice(0, 2), name.slice(2))
  // Changed in place, after it was checked: its identity on disk changed, so it is checked again.
  await writeFile(file, 'a forgery!!')
  t.same(await blobs.read(name), { status: 'changed' })
  await writeFile(file, bytes)
  t.same(whole(await blobs.read(name)), { status: 'ok', bytes, size: bytes.length }, 'put right: served again')
  // A blob larger than one piece comes in pieces, whole.
  const large = Buffer.alloc(600 * 1024, 7)
  await blobs.put(large, sha(large))
  const read = await blobs.read(sha(large))
  t.ok(read.status === 'ok' && read.chunks.length === 3 && Buffer.concat(read.chunks).equals(large), 'in three pieces')
  await rm(file)
  t.same(await blobs.read(name), { status: 'missing' })
  await t.rejects(blobs.read('ABC'), RangeError)
})
