import { generateKeyPairSync } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { hashEvent } from '@waybill/event-store'
import { hashesOf, toHex, treeRoot, verifyConsistency, verifyInclusion, verifyTreeHead } from '@waybill/merkle'
import {
  AuditLog, eventLeafHash, headMaker, HeadStore, readSigningKey, ReadModel, rebuildAuditLog, rebuildReadModel, startProjector,
} from '../../src/index.js'
import { createSigningKey } from '../../src/audit/signing-key.js'
import { openStore, queryFile, randomTraffic, tempDir } from '../helpers.js'

const tablesOf = (path: string): string[] =>
  queryFile<{ name: string }>(path, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map((row) => row.name)

t.test('the audit projection keeps the tree of every order event in its own file and signs heads; an orders rebuild never touches it', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  await randomTraffic(store, { seed: 14, steps: 300, orders: 40 })
  await store.appendToStream('apikey-x', [{ id: '00000000-0000-4000-8000-000000000001', type: 'KeyIssued', data: {} }])
  const all = await store.readAll({ maxCount: 100_000, categories: ['order'] })
  const expected = treeRoot(hashesOf(all.map(eventLeafHash)), all.length)

  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path, batchSize: 37, audit: { signingKey: privateKey, heads, everyEvents: 50 } })
  const head = await store.headPosition()
  await projector.waitFor(head!)
  const status = projector.status()
  t.equal(status.audit?.problem, null)
  t.equal(status.audit?.treeSize, all.length, 'the status counts the leaves')
  t.equal(status.audit?.checkpoint, status.orders.checkpoint, 'each projection has its own checkpoint; both reached the head')
  await projector.stop()

  const log = new AuditLog(dir.path)
  t.teardown(() => log.close())
  t.equal(basename(log.path), 'audit-log.sqlite', 'the audit log is a file of its own')
  t.equal(log.size(), all.length, 'one leaf per order event, none for the key event')
  t.equal(toHex(log.root(all.length)), toHex(expected), 'the root is the tree recomputed from the log')
  t.same(log.checkpoint(), head, 'its checkpoint moved past the key event too')
  const kept = [...heads.all()]
  t.ok(kept.length >= all.length / 50 - 1, `${kept.length} heads, at most 50 leaves apart (batches of 37)`)
  t.equal(kept.at(-1)?.tree_size, all.length, 'the last head covers the caught-up tree')
  for (const h of kept) t.ok(verifyTreeHead(h, publicKey), `head ${h.tree_size} verifies`)
  const [first, last] = [kept[0]!, kept.at(-1)!]
  t.ok(verifyConsistency(first.tree_size, last.tree_size, Buffer.from(first.root_hash, 'hex'), Buffer.from(last.root_hash, 'hex'),
    log.consistency(first.tree_size, last.tree_size)))
  const leaves = log.leavesOf(all[5]!.streamName)
  t.same(leaves.map((l) => l.revision), all.filter((e) => e.streamName === all[5]!.streamName).map((e) => e.revision))
  const leaf = leaves[0]!
  t.ok(verifyInclusion(leaf.hash, leaf.leafIndex, last.tree_size, log.inclusion(leaf.leafIndex, last.tree_size), Buffer.from(last.root_hash, 'hex')))
  t.same(log.leafHash(leaf.leafIndex), leaf.hash)
  t.same([...log.leavesFrom(all.length - 2)].map((l) => l.leafIndex), [all.length - 2, all.length - 1])

  const model = new ReadModel(dir.path)
  t.teardown(() => model.close())
  t.same(tablesOf(model.path), ['checkpoints', 'meta', 'orders'], 'the read model holds no tree')

  // An attacker rewrites one event and its hash.
  const victim = all[7]!
  const db = new Sqlite(join(dir.path, 'events.sqlite'))
  const data = { ...victim.data, address: 'elsewhere' }
  const hash = hashEvent({ ...victim, data })
  db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(JSON.stringify(data), hash, Number(victim.position.commit))
  db.close()

  // Rebuilding the orders reads, writes and checks nothing of the audit log or the heads.
  const auditFile = log.path
  const before = statSync(auditFile).mtimeMs
  const rebuilt = await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path })
  t.equal(model.path, rebuilt.path, 'the orders were rebuilt and swapped in')
  t.equal(statSync(auditFile).mtimeMs, before, 'the audit log file was not written')
  t.equal(log.path, auditFile)
  t.equal(toHex(log.root(all.length)), toHex(expected), 'and still holds the signed tree')

  // Rebuilding the audit log over the rewritten log is refused, and the live one stays.
  await t.rejects(rebuildAuditLog({ store, dataDir: dir.path, heads }),
    /audit rebuild refused: the rebuilt audit tree's root at size \d+ is [0-9a-f]{64}, but the head signed .* says [0-9a-f]{64}: the log was changed/)
  t.equal(log.path, auditFile, 'the live audit log is still the last good one')
  t.same(readdirSync(dir.path).filter((name) => name.startsWith('audit-log.') && name !== 'audit-log.sqlite' && !name.endsWith('-wal') && !name.endsWith('-shm')), [],
    'the refused file was deleted')

  // An audit projection starting from nothing, fed the rewritten log, signs nothing and says why.
  const problems: string[] = []
  const fresh = await tempDir()
  t.teardown(() => fresh.remove())
  const again = startProjector({ store, keys: store.keys, dataDir: fresh.path, audit: { signingKey: privateKey, heads },
    logger: { info() {}, warn() {}, error: (o: object) => problems.push(JSON.stringify(o)) } })
  await again.waitFor(head!)
  t.match(again.status().audit?.problem, /not the signed head's/)
  await again.stop()
  t.equal(problems.length, 1, 'said once, loudly')
  t.equal(heads.latest()?.tree_size, all.length, 'no new head')
})

t.test('audit rebuild: a new file checked against every head, then swapped in; a log cut short is refused', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  await randomTraffic(store, { seed: 15, steps: 200, orders: 30 })
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  const { privateKey } = generateKeyPairSync('ed25519')
  const projector = startProjector({ store, keys: store.keys, dataDir: dir.path, audit: { signingKey: privateKey, heads, everyEvents: 20 } })
  await projector.waitFor((await store.headPosition())!)
  const log = new AuditLog(dir.path)
  t.teardown(() => log.close())
  const size = log.size()
  const root = toHex(log.root(size))
  const progress: number[] = []
  const rebuilt = await rebuildAuditLog({ store, dataDir: dir.path, heads, batchSize: 50, onProgress: (p) => progress.push(p.events) })
  t.equal(rebuilt.leaves, size)
  t.equal(rebuilt.headsChecked, [...heads.all()].length, 'every kept head was checked')
  t.ok(progress.length >= size / 50, 'progress after every batch')
  t.equal(log.path, rebuilt.path, 'readers follow the swap')
  t.equal(toHex(log.root(size)), root, 'to the same tree')
  await randomTraffic(store, { seed: 16, steps: 50, orders: 30 })
  await projector.waitFor((await store.headPosition())!)
  t.equal(projector.status().audit?.path, rebuilt.path, 'the live audit projection follows the swap')
  t.equal(projector.status().audit?.problem, null)
  await projector.stop()

  // The last order event cut from the log: a head covers more than the log holds.
  const db = new Sqlite(join(dir.path, 'events.sqlite'))
  db.prepare("DELETE FROM events WHERE position = (SELECT max(position) FROM events WHERE category = 'order')").run()
  db.close()
  const latest = heads.latest()!
  await t.rejects(rebuildAuditLog({ store, dataDir: dir.path, heads }),
    new RegExp(`audit rebuild refused: the log holds ${latest.tree_size - 1} order events, but a head was signed at ${latest.tree_size} .*events were cut from the log`))
  t.equal(log.path, rebuilt.path, 'the live audit log stays')
})

/** A signing key and a head store in a new data dir, closed and removed after `t`. */
async function signerAndHeads(t: Test) {
  const { privateKey } = generateKeyPairSync('ed25519')
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  return { privateKey, heads }
}

t.test('head policy: every N leaves, after T, on catching up at most once a second; never for a smaller tree', async (t) => {
  const { privateKey, heads } = await signerAndHeads(t)
  let now = Date.parse('2026-01-01T00:00:00.000Z')
  const make = headMaker({ signingKey: privateKey, heads, everyEvents: 10, everyMs: 5000 }, () => new Date(now))
  let size = 0
  const tree = { size: () => size, root: (n: number) => Buffer.alloc(32, n) } as unknown as Parameters<typeof make>[0]
  t.same(make(tree, false), { kind: 'none' }, 'nothing to sign in an empty tree')
  size = 3
  t.equal(make(tree, false).kind, 'signed', 'the first head as soon as there is a leaf')
  size = 5
  now += 100
  t.equal(make(tree, false).kind, 'none')
  t.equal(make(tree, true).kind, 'none', 'caught up, but within a second of the last head')
  now += 1000
  t.equal(make(tree, true).kind, 'signed', 'caught up, a second later')
  size = 15
  t.equal(make(tree, false).kind, 'signed', '10 more leaves')
  size = 16
  now += 5000
  t.equal(make(tree, false).kind, 'signed', '5 s later')
  size = 10
  t.same(make(tree, true), { kind: 'behind', treeSize: 10, headSize: 16 })
  t.same(make(tree, false), { kind: 'none' })
})

t.test('heads signed while behind are kept 64 at a time, on catching up, on stopping, or a second after the first', async (t) => {
  const { privateKey, heads } = await signerAndHeads(t)
  let now = Date.parse('2026-01-01T00:00:00.000Z')
  const make = headMaker({ signingKey: privateKey, heads, everyEvents: 1 }, () => new Date(now))
  let size = 0
  const tree = { size: () => size, root: (n: number) => Buffer.alloc(32, n) } as unknown as Parameters<typeof make>[0]
  const kept = (): number[] => heads.list(null, 100).map((head) => head.tree_size)
  for (size = 1; size <= 63; size += 1) t.equal(make(tree, false).kind, 'signed')
  t.same(kept(), [], 'sixty-three signed, none kept yet')
  size = 64
  t.equal(make(tree, false).kind, 'signed')
  t.same(kept(), Array.from({ length: 64 }, (_, i) => i + 1), 'the sixty-fourth keeps them all')
  size = 65
  t.equal(make(tree, false).kind, 'signed')
  t.equal(kept().length, 64)
  now += 1000
  size = 66
  t.equal(make(tree, false).kind, 'signed')
  t.same(kept().slice(64), [65, 66], 'a second after the first of them')
  size = 67
  t.equal(make(tree, false).kind, 'signed')
  t.same(make(tree, true), { kind: 'none' }, 'caught up: nothing more to sign')
  t.same(kept().slice(66), [67], 'but what was signed is kept')
  size = 68
  t.equal(make(tree, false).kind, 'signed')
  t.equal(make(tree, false, true).kind, 'none')
  t.same(kept().slice(67), [68], 'and when the projection stops')
  t.equal(heads.latest()?.root_hash, Buffer.alloc(32, 68).toString('hex'))
})

t.test('the signing key: made once at 0600 in a 0700 directory, then read back; a readable key is refused', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const keyDir = join(dir.path, 'keys', 'audit')
  t.equal(readSigningKey(keyDir), null, 'none yet')
  const made = createSigningKey(keyDir)
  t.ok(made.created)
  t.equal(statSync(keyDir).mode & 0o777, 0o700)
  t.equal(statSync(made.path).mode & 0o777, 0o600)
  const read = readSigningKey(keyDir)
  t.notOk(read?.created)
  t.equal(read?.keyId, made.keyId)
  t.equal(createSigningKey(keyDir).keyId, made.keyId, 'a second make (another process starting at once) reads the first')
  const { chmodSync } = await import('node:fs')
  chmodSync(made.path, 0o644)
  t.throws(() => readSigningKey(keyDir), /readable by others/)
})
