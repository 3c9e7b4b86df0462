import { createHash } from 'node:crypto'
import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout } from 'node:timers/promises'
import t from 'tap'
import { usageCounter } from '../../src/blob/blob-usage.js'
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

t.test('a folder removed behind the store\'s back is made again by the next put into it; a large blob reads back whole', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const first = Buffer.from('first image')
  await blobs.put(first, sha(first))
  await rm(join(dir, sha(first).slice(0, 2)), { recursive: true })
  // Another blob in the same folder: the store knew the folder, and finds it gone.
  let second = Buffer.from('second image, 0')
  for (let n = 1; sha(second).slice(0, 2) !== sha(first).slice(0, 2); n += 1) second = Buffer.from(`second image, ${n}`)
  await blobs.put(second, sha(second))
  t.same(await blobs.get(sha(second)), second)
  t.same(await readdir(join(dir, sha(second).slice(0, 2))), [sha(second).slice(2)], 'no temp file left')
  const large = Buffer.alloc(3 * 1024 * 1024 + 17, 9)
  large.write('an image larger than one write may take', 1000)
  await blobs.put(large, sha(large))
  t.same(await blobs.get(sha(large)), large)
})

t.test('bytes that do not match the hash, or a malformed hash, are refused', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  await t.rejects(blobs.put(Buffer.from('a'), sha(Buffer.from('b'))), RangeError)
  await t.rejects(blobs.put(Buffer.from('a'), '../../etc/passwd'), RangeError)
  await t.rejects(blobs.get('ABC'), RangeError)
  t.same(await readdir(dir), [], 'nothing was written')
})

t.test('a blob another process wrote is found, and one it set aside is written again: put always looks at the disk', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const here = await openFileBlobStore(dir)
  const elsewhere = await openFileBlobStore(dir)
  const bytes = Buffer.from('proof of delivery')
  t.equal(await here.has(sha(bytes)), false)
  await elsewhere.put(bytes, sha(bytes))
  t.equal(await here.has(sha(bytes)), true, 'the earlier "absent" was not kept')
  await here.put(bytes, sha(bytes))
  t.same(await readdir(join(dir, sha(bytes).slice(0, 2))), [sha(bytes).slice(2)], 'the put found it and wrote nothing')
  await t.rejects(here.put(Buffer.from('other bytes'), sha(bytes)), RangeError, 'a blob in place still checks the bytes')
  // `waybill compact` in another process sets it aside; a put here must not trust that it saw it.
  await elsewhere.sweep(() => false, { graceMs: 0 })
  await here.put(bytes, sha(bytes))
  t.same(await readFile(join(dir, sha(bytes).slice(0, 2), sha(bytes).slice(2))), bytes, 'written again in its place')
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

t.test('read: the bytes of the blobs read last are held, while their file stays as it was, within a budget', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir, { heldBytes: 1000 })
  const [first, second] = ['first', 'second'].map((seed) => Buffer.alloc(600, seed))
  for (const bytes of [first!, second!]) await blobs.put(bytes, sha(bytes))
  const chunksOf = async (bytes: Buffer): Promise<readonly Buffer[]> => {
    const read = await blobs.read(sha(bytes))
    if (read.status !== 'ok') throw new Error(read.status)
    t.same(Buffer.concat(read.chunks), bytes)
    return read.chunks
  }
  const held = await chunksOf(first!)
  t.equal((await chunksOf(first!))[0], held[0], 'read again: the bytes held, not read again')
  const file = join(dir, sha(first!).slice(0, 2), sha(first!).slice(2))
  await writeFile(file, Buffer.alloc(600, 'forged'))
  t.same(await blobs.read(sha(first!)), { status: 'changed' }, 'changed on disk: read and checked again, never served from memory')
  await writeFile(file, first!)
  const again = await chunksOf(first!)
  t.not(again[0], held[0], 'put right: read anew')
  await chunksOf(second!)
  t.not((await chunksOf(first!))[0], again[0], 'past the budget, the blob read longest ago is dropped first')
  const large = Buffer.alloc(1001, 'large')
  await blobs.put(large, sha(large))
  const whole = await chunksOf(large)
  t.not((await chunksOf(large))[0], whole[0], 'a blob larger than the budget is never held')
})

t.test('sweep: an unnamed blob past the grace is set aside, then deleted a grace later; named and young ones stay', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  let clock = Date.now()
  const now = () => clock
  const [named, orphan, young] = ['named', 'orphan', 'young'].map((text) => Buffer.from(`${text} image`))
  for (const bytes of [named!, orphan!]) await blobs.put(bytes, sha(bytes))
  const hour = 60 * 60 * 1000
  clock += 2 * hour
  await blobs.put(young!, sha(young!))
  const isNamed = (name: string) => name === sha(named!)
  const fileOf = (bytes: Buffer) => join(dir, sha(bytes).slice(0, 2), sha(bytes).slice(2))
  // Written "two hours later" on the sweep's clock.
  await utimes(fileOf(young!), new Date(clock), new Date(clock))

  t.same(await blobs.sweep(isNamed, { graceMs: hour, now, dryRun: true }), { setAside: 1, deleted: 0, deletedBytes: 0, restored: 0 }, 'a dry run counts')
  t.same((await readFile(fileOf(orphan!))), orphan, '... and changes nothing')

  t.same(await blobs.sweep(isNamed, { graceMs: hour, now }), { setAside: 1, deleted: 0, deletedBytes: 0, restored: 0 })
  t.same(await readdir(join(dir, '.orphans')), [sha(orphan!)], 'the unnamed, old blob is set aside')
  t.ok(await blobs.has(sha(named!)), 'the named one stays')
  t.ok(await blobs.has(sha(young!)), 'the young one stays: its event may not be appended yet')

  clock += hour / 2
  t.same(await blobs.sweep(isNamed, { graceMs: hour, now }), { setAside: 0, deleted: 0, deletedBytes: 0, restored: 0 }, 'aside for less than the grace: kept')
  clock += hour
  t.same(await blobs.sweep(isNamed, { graceMs: hour, now }), { setAside: 1, deleted: 1, deletedBytes: orphan!.length, restored: 0 }, 'aside a grace and still unnamed: deleted (and young is old now)')
  t.same(await readdir(join(dir, '.orphans')), [sha(young!)])
  t.equal(await blobs.get(sha(orphan!)), null, 'gone')
})

t.test('sweep: a blob set aside that an event names after all comes back, by the next sweep or the first read', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const [first, second, third] = ['first', 'second', 'third'].map((text) => Buffer.from(`${text} proof`))
  for (const bytes of [first!, second!, third!]) await blobs.put(bytes, sha(bytes))
  t.equal((await blobs.sweep(() => false, { graceMs: 0 })).setAside, 3, 'all three set aside')
  // Their events were appended meanwhile (their images were stored before them).
  t.same(await blobs.sweep((name) => name === sha(first!), { graceMs: 0, dryRun: true }), { setAside: 0, deleted: 2, deletedBytes: second!.length + third!.length, restored: 1 })
  t.same(await blobs.sweep((name) => name === sha(first!), { graceMs: 60_000 }), { setAside: 0, deleted: 0, deletedBytes: 0, restored: 1 })
  t.same(await blobs.get(sha(first!)), first, 'put back by the sweep')
  const read = await blobs.read(sha(second!))
  t.ok(read.status === 'ok' && Buffer.concat(read.chunks).equals(second!), 'put back by the first read')
  t.same(await blobs.get(sha(third!)), third, 'and by get')
  t.same(await readdir(join(dir, '.orphans')), [], 'none left aside')
})

t.test('remove deletes a blob in its place or set aside, once; a read then finds it missing', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const kept = Buffer.from('kept image')
  const gone = Buffer.from('erased image')
  const aside = Buffer.from('erased image set aside')
  for (const bytes of [kept, gone, aside]) await blobs.put(bytes, sha(bytes))
  t.equal((await blobs.read(sha(gone))).status, 'ok', 'read once: its identity is remembered')
  const old = new Date(Date.now() - 3_600_000)
  await utimes(join(dir, sha(aside).slice(0, 2), sha(aside).slice(2)), old, old)
  await blobs.sweep((name) => name !== sha(aside), { graceMs: 60_000 })
  t.same(await readdir(join(dir, '.orphans')), [sha(aside)], 'one set aside')
  t.equal(await blobs.remove(sha(gone)), true)
  t.equal(await blobs.remove(sha(aside)), true)
  t.equal(await blobs.remove(sha(gone)), false, 'a second remove finds nothing')
  t.equal((await blobs.read(sha(gone))).status, 'missing')
  t.equal(await blobs.has(sha(aside)), false)
  t.same(await readdir(join(dir, '.orphans')), [], 'nothing left aside')
  t.same(await blobs.get(sha(kept)), kept, 'another blob untouched')
  await t.rejects(blobs.remove('../x'), RangeError)
})

t.test('usage: a sweep here is counted by the next call; one by another process shows once the count is five minutes old', async (t) => {
  const dir = join(await tempDir(t), 'blobs')
  const blobs = await openFileBlobStore(dir)
  const [kept, swept] = ['kept', 'swept'].map((text) => Buffer.from(`${text} image`))
  for (const bytes of [kept!, swept!]) await blobs.put(bytes, sha(bytes))
  t.same(await blobs.usage!(), { blobs: 2, bytes: kept!.length + swept!.length })
  await blobs.sweep((name) => name === sha(kept!), { graceMs: 0 })
  t.same(await blobs.usage!(), { blobs: 1, bytes: kept!.length }, 'what this store set aside is no longer counted')

  let clock = 0
  const counter = usageCounter(dir, () => clock)
  t.same(await counter.usage(), { blobs: 1, bytes: kept!.length })
  // Another process puts the swept blob back in place (as a read of it would).
  const other = await openFileBlobStore(dir)
  t.equal((await other.read(sha(swept!))).status, 'ok')
  clock += 5 * 60_000 - 1
  t.same(await counter.usage(), { blobs: 1, bytes: kept!.length }, 'a count younger than five minutes is kept')
  clock += 1
  t.same(await counter.usage(), { blobs: 1, bytes: kept!.length }, 'a stale one is answered while the directory is counted again')
  for (let tries = 0; tries < 200 && (await counter.usage()).blobs === 1; tries += 1) await setTimeout(5)
  t.same(await counter.usage(), { blobs: 2, bytes: kept!.length + swept!.length }, 'then the new count')
  await rm(dir, { recursive: true })
  clock += 5 * 60_000
  t.same(await counter.usage(), { blobs: 2, bytes: kept!.length + swept!.length }, 'a count that fails leaves the last one')
  await setTimeout(20)
  t.same(await counter.usage(), { blobs: 2, bytes: kept!.length + swept!.length }, '... and the next call tries again')
  counter.forget()
  await t.rejects(counter.usage(), { code: 'ENOENT' }, 'with nothing to answer, a failed count is the answer')
})
