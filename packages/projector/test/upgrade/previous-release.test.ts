import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { toHex, verifyTreeHead } from '@waybill/merkle'
import { AuditLog, HeadStore, ReadModel, startProjector, verifyOrders } from '../../src/index.js'
import { READ_MODEL_SCHEMA_VERSION } from '../../src/orders/sql-schema.js'
import { PREVIOUS_RELEASE, writePreviousRelease } from '../fixtures/previous-release.js'
import { openStore, tempDir } from '../helpers.js'

// A data directory written by the previous release (commit 27cb1ae: the audit tree inside the
// orders read model, schema version 3), made by its own code (fixtures/previous-release/make-fixture.mjs)
// and kept as SQL dumps: 60 order events and a key event, of which the release's projector had
// projected the first 50, with five signed heads (batches of 7, a head every 10 leaves), the last over those 50.
const OLD_PUBLIC_KEY = createPublicKey(readFileSync(join(PREVIOUS_RELEASE, 'audit-public-key.pem')))

async function previousRelease(t: Test) {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  await writePreviousRelease(dir.path)
  const old = new Sqlite(join(dir.path, 'read-model.sqlite'), { readonly: true })
  const oldLeaves = (old.prepare('SELECT hash FROM merkle_leaves ORDER BY leaf_index').all() as Array<{ hash: Buffer }>).map((row) => row.hash)
  old.close()
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  return { dataDir: dir.path, store, heads, oldLeaves, oldHeads: [...heads.all()] }
}

const tables = (path: string): string[] => {
  const db = new Sqlite(path, { readonly: true })
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{ name: string }>).map((row) => row.name)
  } finally {
    db.close()
  }
}

t.test('a data dir of the previous release: the audit projection builds the audit log from the start of the log, agreeing with every kept head', async (t) => {
  const { dataDir, store, heads, oldLeaves, oldHeads } = await previousRelease(t)
  t.equal(oldLeaves.length, 50, 'the release had projected 50 order events')
  t.same(oldHeads.map((head) => head.tree_size), [7, 21, 34, 48, 50], 'and signed five heads, the last at its stop')
  for (const head of oldHeads) t.ok(verifyTreeHead(head, OLD_PUBLIC_KEY), `head ${head.tree_size} was signed by the release's key`)

  const { privateKey } = generateKeyPairSync('ed25519')
  const errors: string[] = []
  const projector = startProjector({ store, keys: store.keys, dataDir, batchSize: 9, audit: { signingKey: privateKey, heads, everyEvents: 1000 },
    logger: { info() {}, warn() {}, error: (object) => errors.push(JSON.stringify(object)) } })
  await projector.waitFor((await store.headPosition())!)
  const status = projector.status()
  await projector.stop()
  t.same(errors, [], 'nothing went wrong')
  t.equal(status.audit?.problem, null, 'the tree agrees with the latest kept head')

  const log = new AuditLog(dataDir)
  t.teardown(() => log.close())
  t.equal(log.size(), 60, 'every order event of the log is a leaf, the 10 the release never projected too')
  t.same([...log.leavesFrom(0)].slice(0, 50).map((leaf) => leaf.hash.toString('hex')), oldLeaves.map((hash) => hash.toString('hex')),
    'the first 50 leaves are the ones the release made')
  for (const head of oldHeads) t.equal(toHex(log.root(head.tree_size)), head.root_hash, `root at ${head.tree_size} is the kept head's`)
  t.equal(heads.latest()?.tree_size, 60, 'and the grown tree got a head of its own')

  const readModel = new ReadModel(dataDir)
  t.teardown(() => readModel.close())
  t.same(tables(readModel.path), ['checkpoints', 'meta', 'orders'], 'the read model lost its tree tables')
  t.ok((await verifyOrders({ store, keys: store.keys, readModel })).ok, 'and its rows, kept and brought up to the head, equal a fresh fold')
})

t.test('the read model of the previous release is migrated by the first reader too, keeping rows and checkpoint; an audit refuses it unchanged', async (t) => {
  const { dataDir } = await previousRelease(t)
  const audit = new ReadModel(dataDir, { migrate: false })
  t.teardown(() => audit.close())
  t.throws(() => audit.checkpoint(), /schema version 3, older than this Waybill's 5/)
  t.ok(tables(join(dataDir, 'read-model.sqlite')).includes('merkle_leaves'), 'left as it was')

  const reader = new ReadModel(dataDir)
  t.teardown(() => reader.close())
  t.same(reader.checkpoint(), { commit: 51n, prepare: 51n }, 'the checkpoint is kept: nothing is replayed')
  t.equal(reader.getOrder('globex', 'P-0')?.status, 'canceled')
  t.equal(reader.getOrder('sandbox', 'P-1')?.status, 'completed')
  const db = new Sqlite(reader.path, { readonly: true })
  t.equal((db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string }).value, String(READ_MODEL_SCHEMA_VERSION))
  db.close()
  t.same(tables(reader.path), ['checkpoints', 'meta', 'orders'])
})
