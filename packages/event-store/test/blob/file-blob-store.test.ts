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
  const first = await blobs.read(name)
  t.same(first, { status: 'ok', bytes })
  t.same(await blobs.read(name), { status: 'ok', bytes }, 'read again (its file unchanged: not hashed again)')
  const file = join(dir, name.slice(0, 2), name.slice(2))
  // Changed in place, after it was checked: its identity on disk changed, so it is checked again.
  await writeFile(file, 'a forgery!!')
  t.same(await blobs.read(name), { status: 'changed' })
  await writeFile(file, bytes)
  t.same(await blobs.read(name), { status: 'ok', bytes }, 'put right: served again')
  await rm(file)
  t.same(await blobs.read(name), { status: 'missing' })
  await t.rejects(blobs.read('ABC'), RangeError)
})

t.test('usage counts the blobs on disk once, then follows this store\'s puts; a put during the count counts once', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const first = await openFileBlobStore(dir)
  const a = Buffer.from('first blob')
  const b = Buffer.alloc(3000, 2)
  await first.put(a, sha(a))
  await first.put(b, sha(b))
  await writeFile(join(dir, 'stray-file'), 'not a blob folder')
  const blobs = await openFileBlobStore(dir)
  const c = Buffer.alloc(500, 3)
  // The count starts, and a put runs beside it: whichever ends first, the blob counts once.
  const [counted] = await Promise.all([blobs.usage!(), blobs.put(c, sha(c))])
  t.ok(counted.blobs === 2 || counted.blobs === 3, `the first answer counts the put or not yet (${counted.blobs})`)
  t.same(await blobs.usage!(), { blobs: 3, bytes: a.length + b.length + c.length }, 'the two on disk and the one put beside the count, once each')
  const d = Buffer.alloc(100, 4)
  await blobs.put(d, sha(d))
  await blobs.put(d, sha(d))
  t.same(await blobs.usage!(), { blobs: 4, bytes: a.length + b.length + c.length + d.length }, 'a new put adds, a repeated one does not')
  t.same(await first.usage!(), { blobs: 4, bytes: a.length + b.length + c.length + d.length }, 'another store counts what is on disk on its first call')
  const empty = await openFileBlobStore(join(await tempDir(t), 'empty'))
  t.same(await empty.usage!(), { blobs: 0, bytes: 0 })
})
