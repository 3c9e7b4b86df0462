import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { KEY_DATABASE_FILE, openSqliteKeyStore, type SubjectKeyStore } from '../src/index.js'
import { keyStoreContract } from './contract.js'

async function tempDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'subject-keys')
}

for (const writer of ['inline', 'worker'] as const) {
  keyStoreContract(`sqlite, ${writer} writer`, async (t) => {
    const keys = await openSqliteKeyStore({ dir: await tempDir(t), writer })
    t.teardown(() => keys.close())
    return keys
  })
}

t.test('the key store directory is private, and a key made by one process is read by another', async (t) => {
  const dir = await tempDir(t)
  const writing = await openSqliteKeyStore({ dir, writer: 'worker' })
  const reading = await openSqliteKeyStore({ dir })
  t.teardown(async () => {
    await writing.close()
    await reading.close()
  })
  t.equal((await stat(dir)).mode & 0o777, 0o700)
  const made = await writing.create('acme', 'A-1', 'Ada')
  t.same(reading.get('acme', 'A-1'), made)
  t.equal(reading.count(), 1)
})

t.test('an erased key and customer leave no byte in the key store\'s files', async (t) => {
  const dir = await tempDir(t)
  const keys: SubjectKeyStore & { count(): number } = await openSqliteKeyStore({ dir, writer: 'worker' })
  t.teardown(() => keys.close())
  const customer = `Customer ${randomBytes(8).toString('hex')}`
  const made = await keys.create('acme', 'A-1', customer)
  const kept = await keys.create('acme', 'A-2', 'Kept Customer')
  if (made === 'erased' || kept === 'erased') throw new Error('unexpected')
  // Some other writes around it, so the pages move.
  for (let i = 0; i < 50; i += 1) await keys.create('acme', `F-${i}`, `filler ${i}`)
  const files = async () => Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name))))
  t.ok((await files()).some((bytes) => bytes.includes(made.secret)), 'before: the secret is in the files')
  t.ok((await files()).some((bytes) => bytes.includes(Buffer.from(customer))), 'before: the customer is in the files')
  await keys.erase('acme', ['A-1'], { at: new Date().toISOString(), scope: 'order', requestedBy: 'test', reason: 'test' })
  for (const bytes of await files()) {
    t.equal(bytes.indexOf(made.secret), -1, 'no secret left')
    t.equal(bytes.indexOf(Buffer.from(customer)), -1, 'no customer left')
  }
  t.ok((await files()).some((bytes) => bytes.includes(kept.secret)), 'another order\'s key is still there')
  t.ok((await readdir(dir)).includes(KEY_DATABASE_FILE))
})
