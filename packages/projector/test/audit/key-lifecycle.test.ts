import { generateKeyPairSync } from 'node:crypto'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { keyIdOf, signKeyStatement, signTreeHead, type SignedTreeHead } from '@waybill/merkle'
import { checkHeadKey, checkKeySet, subtleSha256 } from '@waybill/merkle/verify'
import {
  auditKeyDocument, followSigningKey, HeadStore, openSigningKey, readSigningKey, rotateSigningKey, SigningKeyRefused,
} from '../../src/index.js'
import { headMaker } from '../../src/audit/head-maker.js'
import { createSigningKey, writeNextKey } from '../../src/audit/signing-key.js'
import { tempDir } from '../helpers.js'

const ROOT = 'ab'.repeat(32)
const at = (second: number): Date => new Date(Date.UTC(2026, 10, 23, 9, 0, second))

async function place(t: { teardown(fn: () => unknown): void }) {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  return { dataDir: dir.path, keyDir: join(dir.path, '..', `${dir.path.split('/').at(-1) ?? ''}-key`), heads }
}

t.test('a first-release heads file is moved to the new schema with its heads, once; a newer one is refused', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const path = join(dir.path, 'audit-heads.sqlite')
  const old = new Sqlite(path)
  old.exec('CREATE TABLE heads (tree_size INTEGER PRIMARY KEY, root_hash TEXT NOT NULL, timestamp TEXT NOT NULL, signature TEXT NOT NULL, key_id TEXT NOT NULL)')
  const { privateKey } = generateKeyPairSync('ed25519')
  const kept = [signTreeHead(privateKey, 3, ROOT, at(1)), signTreeHead(privateKey, 7, ROOT, at(2))]
  for (const h of kept) old.prepare('INSERT INTO heads VALUES (?, ?, ?, ?, ?)').run(h.tree_size, h.root_hash, h.timestamp, h.signature, h.key_id)
  old.close()
  const heads = new HeadStore(path)
  t.same([...heads.all()], kept, 'every head kept')
  t.same(heads.keys(), [], 'no key recorded yet')
  t.ok(heads.add({ ...kept[1] as SignedTreeHead, key_id: 'ffffffffffffffff' }), 'a second head of size 7 by another key fits now')
  heads.close()
  const again = new HeadStore(path)
  t.equal([...again.all()].length, 3, 'opening it again changes nothing')
  again.close()
  const newer = new Sqlite(path)
  newer.pragma('user_version = 9')
  newer.close()
  t.throws(() => new HeadStore(path), /heads schema version 9, newer than this Waybill's 2/)
})

t.test('the first start makes the key and records it; later starts read it; heads of another key refuse', async (t) => {
  const { keyDir, heads } = await place(t)
  t.throws(() => openSigningKey(keyDir, heads, { create: false }), /no tree-head signing key in .*nothing was created/)
  const first = openSigningKey(keyDir, heads, { create: true, now: at(0) })
  t.ok(first.created)
  t.same(heads.keys().map((k) => [k.key_id, k.retired_at, k.replaces]), [[first.keyId, null, null]])
  t.same(auditKeyDocument(heads.currentKey()!), {
    algorithm: 'Ed25519', public_key: first.publicKey.export({ format: 'jwk' }).x !== undefined ? Buffer.from(first.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64') : '',
    public_key_pem: first.publicKey.export({ format: 'pem', type: 'spki' }).toString(), key_id: first.keyId,
    status: 'current', valid_from: null, valid_until: null, replaces: null,
  })
  const second = openSigningKey(keyDir, heads, { create: true })
  t.notOk(second.created)
  t.equal(second.keyId, first.keyId)
  // The key directory lost: a restore on another machine. Nothing is made in its place.
  rmSync(keyDir, { recursive: true })
  const refused = t.throws(() => openSigningKey(keyDir, heads, { create: true })) as SigningKeyRefused
  t.ok(refused instanceof SigningKeyRefused)
  t.equal(refused.expected, first.keyId)
  t.equal(refused.held, null)
  t.match(refused.message, new RegExp(`signed by key ${first.keyId}, but .* holds no signing key\\. Either restore the key directory \\(WAYBILL_AUDIT_KEY_DIR\\).*\`waybill audit rotate-key --old-key-lost\``))
  t.notOk(existsSync(keyDir), 'and no key was made')
  const other = createSigningKey(keyDir)
  t.match((t.throws(() => openSigningKey(keyDir, heads, { create: true })) as Error).message, new RegExp(`holds key ${other.keyId}`))
})

t.test('a data dir from before the key set: the key that signed its heads is recorded; another key or none is refused', async (t) => {
  const { keyDir, heads } = await place(t)
  const key = createSigningKey(keyDir)
  heads.add(signTreeHead(key.privateKey, 4, ROOT, at(1)))
  const stranger = generateKeyPairSync('ed25519').privateKey
  const elsewhere = join(keyDir, '..', 'stranger')
  createSigningKey(elsewhere)
  t.throws(() => openSigningKey(elsewhere, heads, { create: true }), SigningKeyRefused)
  const none = t.throws(() => openSigningKey(join(keyDir, 'none'), heads, { create: true })) as SigningKeyRefused
  t.same([none.expected, none.held], [key.keyId, null])
  t.equal(openSigningKey(keyDir, heads, { create: false }).keyId, key.keyId)
  t.equal(heads.currentKey()?.key_id, key.keyId)
  t.notOk(heads.add(signTreeHead(stranger, 5, ROOT, at(2))), 'a head of a key not in the set is not kept once keys are recorded')
  rmSync(elsewhere, { recursive: true, force: true })
})

t.test('rotate-key: the old key vouches for the new, the latest head is signed again, and a projector follows', async (t) => {
  const { keyDir, heads } = await place(t)
  const old = openSigningKey(keyDir, heads, { create: true, now: at(0) })
  const follow = followSigningKey(keyDir, heads, old)
  let size = 6
  const tree = { size: () => size, root: () => Buffer.from(ROOT, 'hex') }
  const make = headMaker({ signingKey: follow, heads, everyEvents: 1 }, () => new Date())
  t.equal(make(tree, true).kind, 'signed')
  t.equal(heads.latest()?.key_id, old.keyId)

  const rotation = rotateSigningKey(keyDir, heads, { oldKeyLost: false })
  t.equal(rotation.statement.kind, 'rotated')
  t.equal(rotation.statement.old_key_id, old.keyId)
  t.equal(rotation.statement.tree_size, 6)
  t.equal(readSigningKey(keyDir)?.keyId, rotation.key.keyId, 'the new key is in place; the old private key is gone')
  t.same(readdirSync(keyDir), ['tree-head-ed25519.pem'], 'and nothing else is left behind')
  t.same(heads.list(null, 10).map((h) => [h.tree_size, h.key_id]), [[6, old.keyId], [6, rotation.key.keyId]], 'size 6 signed by both')
  t.equal(heads.latest()?.key_id, rotation.key.keyId, 'the latest is the new key\'s')
  t.equal(heads.get(6)?.key_id, rotation.key.keyId)
  t.same(heads.keys().map((k) => [k.key_id, k.retired_at === null]), [[old.keyId, false], [rotation.key.keyId, true]])
  t.equal(auditKeyDocument(heads.keys()[0]!).status, 'retired')
  t.equal(auditKeyDocument(heads.keys()[1]!).valid_from, rotation.statement.timestamp)

  t.notOk(heads.add(signTreeHead(old.privateKey, 7, ROOT, new Date())), 'the retired key\'s heads are not kept any more')
  size = 7
  const signed = make(tree, true)
  t.equal(signed.kind, 'signed')
  t.equal(heads.latest()?.key_id, rotation.key.keyId, 'the projector that held the old key signs with the new one')

  const checked = await checkKeySet(heads.keys(), [old.keyId], subtleSha256)
  t.same(checked.problems, [])
  for (const head of heads.all()) t.same(await checkHeadKey(head, checked, subtleSha256), { ok: true }, `head ${head.tree_size} by ${head.key_id}, from the pinned old key`)
  t.same(heads.list(null, 1).length, 2, 'a page of one size holds both heads of a rotation')
})

t.test('a lost key: rotate-key --old-key-lost records the loss, signed by the new key; refusals name the way out', async (t) => {
  const { keyDir, heads } = await place(t)
  t.throws(() => rotateSigningKey(keyDir, heads, { oldKeyLost: false }), /no key is recorded .* nothing to rotate/)
  const old = openSigningKey(keyDir, heads, { create: true })
  heads.add(signTreeHead(old.privateKey, 3, ROOT, at(1)))
  t.throws(() => rotateSigningKey(keyDir, heads, { oldKeyLost: true }), /holds the current key .*: it is not lost/)
  rmSync(keyDir, { recursive: true })
  t.throws(() => rotateSigningKey(keyDir, heads, { oldKeyLost: false }), SigningKeyRefused)
  const stray = createSigningKey(keyDir)
  t.throws(() => rotateSigningKey(keyDir, heads, { oldKeyLost: true }), new RegExp(`holds key ${stray.keyId}, which is not the current key .*: move it away first`))
  rmSync(keyDir, { recursive: true })
  const rotation = rotateSigningKey(keyDir, heads, { oldKeyLost: true })
  t.equal(rotation.statement.kind, 'lost')
  t.equal(rotation.statement.endorsement, null)
  t.equal(openSigningKey(keyDir, heads, { create: false }).keyId, rotation.key.keyId, 'serve starts again with the new key')
  const trustingAll = await checkKeySet(heads.keys(), null, subtleSha256)
  for (const head of heads.all()) t.ok((await checkHeadKey(head, trustingAll, subtleSha256)).ok, `head ${head.tree_size} verifies with the set`)
  const pinnedOld = await checkKeySet(heads.keys(), [old.keyId], subtleSha256)
  const verdict = await checkHeadKey(heads.latest()!, pinnedOld, subtleSha256)
  t.match(verdict, { ok: false, reason: /declared lost at tree size 3/ }, 'an auditor who pinned the lost key is told to confirm the new one')
})

t.test('a rotation cut short after it was recorded is finished by the next start; one that failed leaves no key behind', async (t) => {
  const { keyDir, heads } = await place(t)
  const old = openSigningKey(keyDir, heads, { create: true })
  const { privateKey: next } = generateKeyPairSync('ed25519')
  writeNextKey(keyDir, next)
  heads.changeKey(({ current, latest, now }) => ({
    statement: signKeyStatement({ oldKeyId: current.key_id, treeSize: latest?.tree_size ?? 0, rootHash: ROOT, at: now }, next, old.privateKey), head: null,
  }))
  // The crash: recorded, not yet renamed into place.
  t.equal(readSigningKey(keyDir)?.keyId, old.keyId)
  t.equal(openSigningKey(keyDir, heads, { create: false }).keyId, keyIdOf(next))
  t.same(readdirSync(keyDir), ['tree-head-ed25519.pem'])
  t.throws(() => heads.changeKey(() => { throw new Error('no') }), /no/)
  t.throws(() => heads.changeKey(({ now, latest }) => ({
    statement: signKeyStatement({ oldKeyId: old.keyId, treeSize: latest?.tree_size ?? 0, rootHash: ROOT, at: now }, generateKeyPairSync('ed25519').privateKey, null), head: null,
  })), /retires key .*, not the current/)
  writeFileSync(join(keyDir, 'unrelated'), '')
  t.equal(heads.keys().length, 2, 'failed changes record nothing')
})

t.test('a projector whose key directory does not get the rotated key stops signing and says why', async (t) => {
  const { keyDir, heads } = await place(t)
  const old = openSigningKey(keyDir, heads, { create: true })
  // The rotation is made on another machine's copy of the key directory.
  const copy = `${keyDir}-copy`
  t.teardown(() => rmSync(copy, { recursive: true, force: true }))
  const { cpSync } = await import('node:fs')
  cpSync(keyDir, copy, { recursive: true })
  const rotation = rotateSigningKey(copy, heads, { oldKeyLost: false })
  const make = headMaker({ signingKey: followSigningKey(keyDir, heads, old), heads, everyEvents: 1 })
  const verdict = make({ size: () => 2, root: () => Buffer.from(ROOT, 'hex') }, true)
  t.match(verdict, { kind: 'no_key', reason: new RegExp(`signed by key ${rotation.key.keyId}, but .* holds key ${old.keyId}`) })
  t.equal(heads.latest(), null, 'nothing signed')
  rmSync(keyDir, { recursive: true })
  writeFileSync(keyDir, 'not a directory')
  t.match(make({ size: () => 2, root: () => Buffer.from(ROOT, 'hex') }, true), { kind: 'no_key', reason: /cannot be read/ })
  rmSync(keyDir)
})

t.test('a restore to an earlier point forgets the heads and the key changes past it, and the key before is current again', async (t) => {
  const { keyDir, heads } = await place(t)
  const first = openSigningKey(keyDir, heads, { create: true })
  heads.add(signTreeHead(first.privateKey, 4, ROOT, at(1)))
  heads.add(signTreeHead(first.privateKey, 8, ROOT, at(2)))
  const second = rotateSigningKey(keyDir, heads, { oldKeyLost: false })
  heads.add(signTreeHead(second.key.privateKey, 12, ROOT, new Date()))
  const third = rotateSigningKey(keyDir, heads, { oldKeyLost: false })
  t.same(heads.forgetAfter(12), { heads: [], keys: [] }, 'nothing past the end of the whole log')
  const forgotten = heads.forgetAfter(7)
  t.same(forgotten.heads.map((h) => [h.tree_size, h.key_id]), [[8, first.keyId], [8, second.key.keyId], [12, second.key.keyId], [12, third.key.keyId]])
  t.same(forgotten.keys.map((k) => k.key_id), [third.key.keyId, second.key.keyId], 'newest first')
  t.same(heads.keys().map((k) => [k.key_id, k.retired_at]), [[first.keyId, null]], 'the first key is current again')
  t.same([...heads.all()].map((h) => h.tree_size), [4])
})
