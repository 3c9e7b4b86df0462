import { generateKeyPairSync } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { hashEvent } from '@waybill/event-store'
import { hashesOf, toHex, treeRoot, verifyConsistency, verifyInclusion, verifyTreeHead } from '@waybill/merkle'
import {
  eventLeafHash, headMaker, HeadStore, loadOrCreateSigningKey, ReadModel, rebuildReadModel, startProjector,
} from '../../src/index.js'
import { openStore, randomTraffic, tempDir } from '../helpers.js'

t.test('the projector keeps the tree of every order event in log order, signs heads, and a rebuild checks them', async (t) => {
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
  const projector = startProjector({ store, dataDir: dir.path, batchSize: 37, audit: { signingKey: privateKey, heads, everyEvents: 50 } })
  const head = await store.headPosition()
  await projector.waitFor(head!)
  t.equal(projector.status().audit?.problem, null)
  await projector.stop()

  const model = new ReadModel(dir.path)
  t.teardown(() => model.close())
  const tree = model.tree()
  t.equal(tree.size(), all.length, 'one leaf per order event, none for the key event')
  t.equal(toHex(tree.root(all.length)), toHex(expected), 'the root is the tree recomputed from the log')
  const kept = [...heads.all()]
  t.ok(kept.length >= all.length / 50 - 1, `${kept.length} heads, at most 50 leaves apart (batches of 37)`)
  t.equal(kept.at(-1)?.tree_size, all.length, 'the last head covers the caught-up tree')
  for (const h of kept) t.ok(verifyTreeHead(h, publicKey), `head ${h.tree_size} verifies`)
  const [first, last] = [kept[0]!, kept.at(-1)!]
  t.ok(verifyConsistency(first.tree_size, last.tree_size, Buffer.from(first.root_hash, 'hex'), Buffer.from(last.root_hash, 'hex'),
    tree.consistency(first.tree_size, last.tree_size)))
  const leaves = tree.leavesOf(all[5]!.streamName)
  t.same(leaves.map((l) => l.revision), all.filter((e) => e.streamName === all[5]!.streamName).map((e) => e.revision))
  const leaf = leaves[0]!
  t.ok(verifyInclusion(leaf.hash, leaf.leafIndex, last.tree_size, tree.inclusion(leaf.leafIndex, last.tree_size), Buffer.from(last.root_hash, 'hex')))

  // A rebuild of an unchanged log agrees with every head.
  const rebuilt = await rebuildReadModel({ store, dataDir: dir.path, heads })
  t.ok(statSync(rebuilt.path).isFile())
  t.equal(toHex(model.tree().root(all.length)), toHex(expected), 'the rebuilt tree is the same tree')

  // An attacker rewrites one event and its hash: the rebuild refuses, and the live model stays.
  const victim = all[7]!
  const db = new Sqlite(join(dir.path, 'events.sqlite'))
  const data = { ...victim.data, address: 'elsewhere' }
  const hash = hashEvent({ ...victim, data })
  db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(JSON.stringify(data), hash, Number(victim.position.commit))
  db.close()
  await t.rejects(rebuildReadModel({ store, dataDir: dir.path, heads }), /rebuild refused: the rebuilt audit tree's root at size \d+ is [0-9a-f]{64}, but the head signed/)
  t.equal(model.path, rebuilt.path, 'the live model is still the last good one')

  // A projector on a model that lost its tree, fed the rewritten log, signs nothing and says why.
  const problems: string[] = []
  const fresh = await tempDir()
  t.teardown(() => fresh.remove())
  const again = startProjector({ store, dataDir: fresh.path, audit: { signingKey: privateKey, heads },
    logger: { info() {}, warn() {}, error: (o: object) => problems.push(JSON.stringify(o)) } })
  await again.waitFor(head!)
  t.match(again.status().audit?.problem, /not the signed head's/)
  await again.stop()
  t.equal(problems.length, 1, 'said once, loudly')
  t.equal(heads.latest()?.tree_size, all.length, 'no new head')
})

t.test('head policy: every N leaves, after T, on catching up at most once a second; never for a smaller tree', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519')
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
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

t.test('the signing key: made once at 0600 in a 0700 directory, then read back; a readable key is refused', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const keyDir = join(dir.path, 'keys', 'audit')
  const made = loadOrCreateSigningKey(keyDir)
  t.ok(made.created)
  t.equal(statSync(keyDir).mode & 0o777, 0o700)
  t.equal(statSync(made.path).mode & 0o777, 0o600)
  const read = loadOrCreateSigningKey(keyDir)
  t.notOk(read.created)
  t.equal(read.keyId, made.keyId)
  const { chmodSync } = await import('node:fs')
  chmodSync(made.path, 0o644)
  t.throws(() => loadOrCreateSigningKey(keyDir), /readable by others/)
})
