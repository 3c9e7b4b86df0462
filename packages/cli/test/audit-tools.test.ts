import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { readOperation } from '@waybill/http/operation-status'
import { runWaybill } from '../src/testing.js'
import { seeded } from './seeded-store.js'

/** `waybill <args>` on `dataDir`. */
const waybill = (dataDir: string, args: readonly string[]) => runWaybill(args, { env: { WAYBILL_DATA_DIR: dataDir } })

t.test('replay prints each event and the state after it; the chain holds', async (t) => {
  const dataDir = await seeded(t)
  const out = await waybill(dataDir, ['replay', 'A-1'])
  t.equal(out.code, 0, out.stderr)
  const states = out.stdout.split('\n').filter((line) => line.trim().startsWith('state ')).map((line) => JSON.parse(line.trim().slice(6)) as { status: string; address: string })
  t.same(states.map((s) => [s.status, s.address]), [['pending', '1 Main'], ['in_progress', '2 Main'], ['canceled', '2 Main']])
  t.match(out.stdout, /#0 OrderAdded[\s\S]*#1 OrderUpdated[\s\S]*#2 OrderCanceled/)
  t.match(out.stdout, /hash chain: ok \(3 events/)

  const json = await waybill(dataDir, ['replay', 'A-1', '--account', 'acme', '--json'])
  t.equal(json.code, 0)
  const doc = JSON.parse(json.stdout) as { stream: string; events: Array<{ state: { status: string } }>; chain: { ok: boolean } }
  t.equal(doc.stream, 'order-acme-A-1')
  t.same(doc.events.map((e) => e.state.status), ['in_progress'])
  t.same(doc.chain, { ok: true })

  const missing = await waybill(dataDir, ['replay', 'nope'])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /no order nope in account sandbox/)
  t.equal((await waybill(dataDir, ['replay'])).code, 2)
})

t.test('rebuild builds the model, then verify passes; tampering with one stored event is caught by replay and verify', async (t) => {
  const dataDir = await seeded(t)
  const rebuilt = await waybill(dataDir, ['rebuild'])
  t.equal(rebuilt.code, 0, rebuilt.stderr)
  t.match(rebuilt.stdout, /rebuilt orders: 6 events in [\d.]+ s \(\d+ events\/s\)/)
  t.match(rebuilt.stderr, /100\.0% 6\/6 events/, 'plain progress lines when not on a terminal')
  // What /metrics reports of it: its status file in the data dir.
  const status = await readOperation(dataDir, 'rebuild')
  t.match(status, { operation: 'rebuild', state: 'succeeded', detail: /^6 events in [\d.]+ s/, finished_at: String, last_success: { started_at: String, finished_at: String } })
  t.equal(status?.last_success?.finished_at, status?.finished_at, 'this run is the last success')
  const clean = await waybill(dataDir, ['verify'])
  t.equal(clean.code, 0, clean.stdout + clean.stderr)
  t.match(clean.stdout, /streams: 4, events: 6/)
  t.match(clean.stdout, /verify: OK/)

  const db = new Sqlite(join(dataDir, 'events.sqlite'))
  const changed = db.prepare("UPDATE events SET data = json_set(data, '$.address', '9 Fake St') WHERE stream = 'order-sandbox-A-1' AND revision = 1").run()
  db.close()
  t.equal(changed.changes, 1)

  const replay = await waybill(dataDir, ['replay', 'A-1'])
  t.equal(replay.code, 1)
  t.match(replay.stdout, /hash chain: BROKEN at revision 1: content does not match its hash/)
  const verify = await waybill(dataDir, ['verify'])
  t.equal(verify.code, 1)
  t.match(verify.stdout, /BROKEN CHAIN order-sandbox-A-1: breaks at revision 1/)
  t.match(verify.stdout, /verify: FAILED — 1 broken chain/)
  const other = await waybill(dataDir, ['replay', 'A-2'])
  t.equal(other.code, 0, 'other streams still verify')
})

t.test('usage errors exit 2', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-audit-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  t.equal((await waybill(dataDir, ['rebuild', '--projection', 'nope'])).code, 2)
  t.equal((await waybill(dataDir, ['verify', '--bogus'])).code, 2)
  t.equal((await waybill(dataDir, ['projector', '--batch-size', '0'])).code, 2)
  const grace = await waybill(dataDir, ['compact', '--grace', 'soon'])
  t.equal(grace.code, 2)
  t.match(grace.stderr, /--grace: "soon" is not a duration/)
})

t.test('compact: unnamed images set aside, then deleted a grace later; a dry run says so and changes nothing', async (t) => {
  const dataDir = await seeded(t)
  t.equal((await waybill(dataDir, ['rebuild'])).code, 0)
  const blobs = join(dataDir, 'blobs', 'ab')
  await mkdir(blobs, { recursive: true })
  const orphan = join(blobs, 'c'.repeat(62))
  await writeFile(orphan, 'an image no event names')
  const dry = await waybill(dataDir, ['compact', '--grace', '0s', '--dry-run'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, /^images: 1 would be set aside, 0 would be deleted \(0 bytes\), 0 would be put back\nread model: \d+ of \d+ pages free \(\d+%\); left as it is\n$/)
  t.ok(existsSync(orphan), 'the dry run moved nothing')
  t.equal(await readOperation(dataDir, 'compact'), null, 'a dry run is no operation of record')
  const first = await waybill(dataDir, ['compact', '--grace', '0s'])
  t.match(first.stdout, /^images: 1 set aside, 0 deleted \(0 bytes\), 0 put back\n/)
  t.match(await readOperation(dataDir, 'compact'), { operation: 'compact', state: 'succeeded', detail: /^images: 1 set aside, .*; read model: \d+ of \d+ pages free/ }, 'the run is in its status file')
  t.notOk(existsSync(orphan))
  const second = await waybill(dataDir, ['compact', '--grace', '0s'])
  t.match(second.stdout, /^images: 0 set aside, 1 deleted \(23 bytes\), 0 put back\n/)
  t.equal((await waybill(dataDir, ['verify'])).code, 0, 'the data dir still verifies')
})

t.test('verify finds events deleted from the log: the gap, with where it starts', async (t) => {
  const dataDir = await seeded(t)
  t.equal((await waybill(dataDir, ['rebuild'])).code, 0)
  const db = new Sqlite(join(dataDir, 'events.sqlite'))
  // A whole one-event stream, in the middle of the log: no hash chain can show it gone.
  const deleted = db.prepare("SELECT position FROM events WHERE stream = 'order-sandbox-A-2'").get() as { position: number }
  db.prepare('DELETE FROM events WHERE position = ?').run(deleted.position)
  db.close()
  const verify = await waybill(dataDir, ['verify'])
  t.equal(verify.code, 1, verify.stdout)
  t.match(verify.stdout, new RegExp(`GAP IN THE LOG: 1 position\\(s\\) hold no event \\(deleted\\); gaps start at ${deleted.position}`))
  t.match(verify.stdout, /verify: FAILED — 1 missing position/)
  const json = JSON.parse((await waybill(dataDir, ['verify', '--json'])).stdout) as { ok: boolean; log: unknown }
  t.same(json.log, { missing_positions: 1, gap_starts: [String(deleted.position)] })
  t.equal(json.ok, false)
})

t.test('replay, verify, rebuild, audit rebuild, compact on a data dir with no store refuse, and create nothing', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'waybill-audit-'))
  t.teardown(() => rm(parent, { recursive: true, force: true }))
  const typo = join(parent, 'dta')
  for (const args of [['replay', 'A-1'], ['verify'], ['rebuild'], ['audit', 'rebuild'], ['compact']]) {
    const out = await waybill(typo, args)
    t.equal(out.code, 1, args.join(' '))
    t.match(out.stderr, /no event store at .*dta\/events\.sqlite: check WAYBILL_DATA_DIR/, args.join(' '))
  }
  t.notOk(existsSync(typo), 'the mistyped directory was not created')
})
