import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createHash, generateKeyPairSync } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { eventIdFor, orderDecider, SCHEMA_VERSION, streamNameFor, type OrderCommand, type WireEvent } from '@waybill/domain'
import { handleCommand, hashEvent, openFileBlobStore, openSqliteEventStore } from '@waybill/event-store'
import { readOperation } from '@waybill/http/operation-status'
import { runWaybill, startWaybill } from '../src/testing.js'

// The smallest valid PNG (1x1): the proof of delivery of A-1.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
const PNG_SHA = createHash('sha256').update(PNG).digest('hex')

const root = await mkdtemp(join(tmpdir(), 'waybill-audit-log-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const keyDir = join(root, 'audit-key')
const env = (dataDir: string) => ({ WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: keyDir, WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '2', WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'warn' })
const waybill = (dataDir: string, args: readonly string[]) => runWaybill(args, { env: env(dataDir) })

function cmd(account: string, event: WireEvent, data: Record<string, unknown>): OrderCommand {
  return { type: event, data, eventId: eventIdFor(account, event, data) } as unknown as OrderCommand
}

/** Orders through the real command handler; A-1 is delivered to Jane Doe with a pod image. */
async function seed(dataDir: string): Promise<void> {
  await mkdir(dataDir, { mode: 0o700 })
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  await (await openFileBlobStore(join(dataDir, 'blobs'))).put(PNG, PNG_SHA)
  const metadata = { received_at: '2025-05-01T00:00:00.000Z', key_id: 'k', request_id: 'r', schema_version: SCHEMA_VERSION }
  const run = (c: OrderCommand) => handleCommand(store, streamNameFor('sandbox', c.data.order_id), orderDecider, c, { metadata })
  const add = (id: string) => cmd('sandbox', 'ORDER_ADD', { order_id: id, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' })
  await run(add('A-1'))
  await run(add('A-2'))
  await run(cmd('sandbox', 'ORDER_COMPLETE', { order_id: 'A-1', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', recipient: 'Jane Doe', event_date: '2025-05-02T00:00:00Z',
    pod: { sha256: PNG_SHA, media_type: 'image/png', bytes: PNG.length } }))
  await run(add('A-3'))
  await run(cmd('sandbox', 'ORDER_UPDATE', { order_id: 'A-2', status: 'in_progress', address: '2 Main', delivery_date: '2025-05-03T00:00:00Z', event_date: '2025-05-01T01:00:00Z' }))
  await run(add('A-4'))
  await store.close()
}

/** `waybill projector` until every order event is under a signed head, then stopped as by SIGTERM. */
async function project(dataDir: string, leaves: number): Promise<void> {
  const projector = startWaybill(['projector', '--status-every', '0.2', '--batch-size', '2'], { env: env(dataDir) })
  for (let tries = 0; tries < 100; tries += 1) {
    const heads = (await waybill(dataDir, ['audit', 'heads'])).stdout.trim().split('\n').filter(Boolean)
    if (heads.length > 0 && (JSON.parse(heads.at(-1)!) as { tree_size: number }).tree_size === leaves) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const { code, stdout, stderr } = await projector.stop()
  if (code !== 0) throw new Error(`waybill projector did not end with 0:\n${stdout}${stderr}`)
}

const base = join(root, 'base')
const kept = join(root, 'kept-heads.jsonl')
t.before(async () => {
  await seed(base)
  await project(base, 6)
  // What an auditor keeps elsewhere: `waybill audit heads >> heads.jsonl`, copied off the machine.
  await writeFile(kept, (await waybill(base, ['audit', 'heads'])).stdout)
})

/** A copy of the audited data dir to do harm to. */
async function copy(name: string): Promise<string> {
  const dir = join(root, name)
  await cp(base, dir, { recursive: true })
  return dir
}

t.test('heads are exported as JSON lines, verify with the public key, and the untouched log verifies', async (t) => {
  const lines = (await readFile(kept, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { tree_size: number; key_id: string })
  t.ok(lines.length >= 3, 'a head at least every 2 events')
  t.equal(lines.at(-1)?.tree_size, 6)
  const after = (await waybill(base, ['audit', 'heads', '--after', String(lines[0]!.tree_size)])).stdout.trim().split('\n')
  t.equal(after.length, lines.length - 1)
  const key = JSON.parse((await waybill(base, ['audit', 'public-key'])).stdout) as { key_id: string; algorithm: string }
  t.equal(key.algorithm, 'Ed25519')
  t.equal(lines[0]?.key_id, key.key_id)
  const verify = await waybill(base, ['audit', 'verify', '--head', kept])
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, /log: 6 order events, root [0-9a-f]{64}; 4 streams, 1 images/)
  t.match(verify.stdout, /audit verify: OK/)
})

t.test('the tamper test: "Jane Doe" becomes "John Roe", hashes and chain rewritten with the project\'s own hash function', async (t) => {
  const dir = await copy('tampered')
  const db = new Sqlite(join(dir, 'events.sqlite'))
  type Row = { position: number; stream: string; revision: number; event_id: string; type: string; data: string; metadata: string }
  const rows = db.prepare("SELECT position, stream, revision, event_id, type, data, metadata FROM events WHERE stream = 'order-sandbox-A-1' ORDER BY revision").all() as Row[]
  // As an attacker with the store would: change the data, then re-hash it and every later event of the stream.
  let previous: string | null = null
  for (const row of rows) {
    const data = JSON.parse(row.data) as Record<string, unknown>
    if (data.recipient === 'Jane Doe') data.recipient = 'John Roe'
    const metadata = { ...(JSON.parse(row.metadata) as Record<string, unknown>), prev_hash: previous }
    const hash = hashEvent({ streamName: row.stream, revision: row.revision, id: row.event_id, type: row.type, data, metadata })
    db.prepare('UPDATE events SET data = ?, metadata = ?, hash = ? WHERE position = ?').run(JSON.stringify(data), JSON.stringify(metadata), hash, row.position)
    previous = hash
  }
  db.close()
  const replay = await waybill(dir, ['replay', 'A-1'])
  t.match(replay.stdout, /John Roe[\s\S]*hash chain: ok/, 'the hash chain alone no longer shows anything')

  const verify = await waybill(dir, ['audit', 'verify', '--head', kept])
  t.equal(verify.code, 1, verify.stdout)
  t.match(verify.stdout, /ROOT: your kept head 6 .*the log was changed; the first leaf that differs from the signed tree is leaf 2: order A-1 revision 1 \(account sandbox\)/)
  t.match(verify.stdout, /audit verify: FAILED/)

  // The attacker also deletes the heads the data dir kept: only the auditor's own head catches it.
  await rm(join(dir, 'audit-heads.sqlite'))
  const unkept = await waybill(dir, ['audit', 'verify'])
  t.equal(unkept.code, 0, 'with no head kept elsewhere a rewrite of the whole store is not caught (docs/audit.md#trust-model)')
  t.match(unkept.stdout, /no kept head given/)
  const caught = await waybill(dir, ['audit', 'verify', '--head', kept])
  t.equal(caught.code, 1)
  t.match(caught.stdout, /order A-1 revision 1 \(account sandbox\)/)
  const json = JSON.parse((await waybill(dir, ['audit', 'verify', '--head', kept, '--json'])).stdout) as { ok: boolean; findings: Array<{ kind: string; leaf: unknown }> }
  t.equal(json.ok, false)
  t.same(json.findings[0]?.leaf, { leafIndex: 2, stream: 'order-sandbox-A-1', account: 'sandbox', orderId: 'A-1', revision: 1 })

  t.equal((await waybill(dir, ['rebuild'])).code, 0, 'the orders are rebuilt whatever the audit log says: they never check it')
  const rebuildAudit = await waybill(dir, ['audit', 'rebuild'])
  t.equal(rebuildAudit.code, 0, 'with its heads deleted, the data dir no longer refuses an audit rebuild; the kept head still does the catching')
  t.match(rebuildAudit.stdout, /rebuilt the audit log: 6 events in .*; 6 leaves agree with 0 kept head\(s\); now serving .*audit-log\.\d{8}T\d+Z-\d+\.sqlite/)
  t.match(await readOperation(dir, 'audit-rebuild'), { state: 'succeeded', done: 6, total: 6, detail: /^6 events in / }, 'its run is in its status file, for /metrics')
})

t.test('audit rebuild checks the rebuilt tree against the kept heads: a rewritten event is refused, the live audit log kept', async (t) => {
  const dir = await copy('rewritten')
  const db = new Sqlite(join(dir, 'events.sqlite'))
  const row = db.prepare("SELECT position, stream, revision, event_id, type, data, metadata FROM events WHERE stream = 'order-sandbox-A-2' AND revision = 0").get() as
    { position: number; stream: string; revision: number; event_id: string; type: string; data: string; metadata: string }
  const data = { ...(JSON.parse(row.data) as Record<string, unknown>), address: '9 Elsewhere' }
  const hash = hashEvent({ streamName: row.stream, revision: row.revision, id: row.event_id, type: row.type, data, metadata: JSON.parse(row.metadata) as Record<string, unknown> })
  db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(JSON.stringify(data), hash, row.position)
  db.close()
  const refused = await waybill(dir, ['audit', 'rebuild'])
  t.equal(refused.code, 1, refused.stdout)
  t.match(refused.stderr, /audit rebuild refused: the rebuilt audit tree's root at size \d+ is [0-9a-f]{64}, but the head signed .* says [0-9a-f]{64}: the log was changed/)
  t.match(await readOperation(dir, 'audit-rebuild'), { state: 'failed', detail: /the log was changed/, last_success: null }, 'a refused rebuild is a failed operation')
  t.notOk(existsSync(join(dir, 'audit-log.current')), 'the live audit log stays the one in use')
  t.equal((await waybill(dir, ['audit', 'verify'])).code, 1, 'and audit verify, from the log, says the same')
})

t.test('cutting the last events off the log is caught against a kept head', async (t) => {
  const dir = await copy('cut')
  const db = new Sqlite(join(dir, 'events.sqlite'))
  db.prepare("DELETE FROM events WHERE position IN (SELECT position FROM events WHERE category = 'order' ORDER BY position DESC LIMIT 2)").run()
  db.close()
  await rm(join(dir, 'audit-heads.sqlite'))
  const verify = await waybill(dir, ['audit', 'verify', '--head', kept])
  t.equal(verify.code, 1, verify.stdout)
  t.match(verify.stdout, /CUT: your kept head 6 .* covers 6 order events, but the log holds 4: events were cut from the log; the first missing leaf is leaf 4: order A-2 revision 1 \(account sandbox\)/)
  const headsKept = await copy('cut-heads-kept')
  const d = new Sqlite(join(headsKept, 'events.sqlite'))
  d.prepare("DELETE FROM events WHERE position = (SELECT max(position) FROM events WHERE category = 'order')").run()
  d.close()
  const rebuild = await waybill(headsKept, ['audit', 'rebuild'])
  t.equal(rebuild.code, 1)
  t.match(rebuild.stderr, /audit rebuild refused: the log holds 5 order events, but a head was signed at 6 .*: events were cut from the log/)
  t.equal((await waybill(headsKept, ['rebuild'])).code, 0, 'the orders rebuild has nothing to refuse')
})

t.test('an overwritten image and a deleted image are caught by audit verify, naming the order', async (t) => {
  const dir = await copy('images')
  const file = join(dir, 'blobs', PNG_SHA.slice(0, 2), PNG_SHA.slice(2))
  await writeFile(file, 'not a png at all')
  const overwritten = await waybill(dir, ['audit', 'verify', '--head', kept])
  t.equal(overwritten.code, 1)
  t.match(overwritten.stdout, new RegExp(`IMAGE: image ${PNG_SHA} of leaf 2: order A-1 revision 1 \\(account sandbox\\) does not hash to what the event recorded`))
  await rm(file)
  const deleted = await waybill(dir, ['audit', 'verify', '--head', kept])
  t.equal(deleted.code, 1)
  t.match(deleted.stdout, new RegExp(`IMAGE: image ${PNG_SHA} of leaf 2: order A-1 revision 1 \\(account sandbox\\) is missing`))
})

t.test('an auditor verifies a copy with the public key they pinned, no private key needed; another key fails', async (t) => {
  const noKey = { WAYBILL_AUDIT_KEY_DIR: join(root, 'no-private-key') }
  const pinnedJson = join(root, 'pinned.json')
  await writeFile(pinnedJson, (await waybill(base, ['audit', 'public-key'])).stdout)
  const withJson = await runWaybill(['audit', 'verify', '--head', kept, '--public-key', pinnedJson], { env: { ...env(base), ...noKey } })
  t.equal(withJson.code, 0, withJson.stdout + withJson.stderr)
  t.match(withJson.stdout, /heads checked, each against the key it names: \d+ .*keys believed: [0-9a-f]{16} \(--public-key, and the keys they vouched for\)/)
  const pinnedPem = join(root, 'pinned.pem')
  await writeFile(pinnedPem, (JSON.parse(await readFile(pinnedJson, 'utf8')) as { public_key_pem: string }).public_key_pem)
  t.equal((await runWaybill(['audit', 'verify', '--public-key', pinnedPem], { env: { ...env(base), ...noKey } })).code, 0, 'a PEM works too')
  const other = join(root, 'other.pem')
  await writeFile(other, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }))
  const wrong = await runWaybill(['audit', 'verify', '--head', kept, '--public-key', other], { env: { ...env(base), ...noKey } })
  t.equal(wrong.code, 1, 'heads signed by another key than the pinned one fail')
  t.match(wrong.stdout, /audit verify: FAILED/)
  const junk = await runWaybill(['audit', 'verify', '--public-key', kept], { env: { ...env(base), ...noKey } })
  t.equal(junk.code, 2)
  t.match(junk.stderr, /--public-key .*: not a public key/)
})

t.test('usage: a subcommand is needed; a head file must hold a head; no key is made by an audit', async (t) => {
  t.equal((await waybill(base, ['audit'])).code, 2)
  t.equal((await waybill(base, ['audit', 'bogus'])).code, 2)
  t.equal((await waybill(base, ['audit', 'heads', '--after', 'x'])).code, 2)
  const junk = join(root, 'junk.json')
  await writeFile(junk, '{"tree_size": "six"}\n')
  const refused = await waybill(base, ['audit', 'verify', '--head', junk])
  t.equal(refused.code, 2)
  t.match(refused.stderr, /not a signed tree head/)
  const empty = join(root, 'empty')
  await mkdir(empty)
  const keyless = await runWaybill(['audit', 'public-key'], { env: { ...env(empty), WAYBILL_AUDIT_KEY_DIR: join(root, 'nokey') } })
  t.equal(keyless.code, 1)
  t.match(keyless.stderr, /no tree-head key is recorded in .*empty\/audit-heads\.sqlite yet/)
  t.notOk(existsSync(join(root, 'nokey')), 'and no key was made')
})
