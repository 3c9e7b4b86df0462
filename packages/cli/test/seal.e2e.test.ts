import { cp, readdir, writeFile } from 'node:fs/promises'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { runWaybill, startServe } from '../src/testing.js'
import { clientFor, type Answer, type Client } from './https-client.js'
import { holding } from './files-holding.js'
import { allFixtureValues, FIXTURE_IMAGES, fixtureValues, previousReleaseDataDir } from './seal-fixture.js'

const ORDERS = ['P-1', 'P-2', 'P-4', 'P-5', 'N-1'] as const
const PERSONAL = ['customer', 'location', 'address', 'recipient', 'reason', 'pod', 'signature'] as const

/** A request, again after a 503 (a server just started on a loaded machine sheds load for a moment; a delivery is idempotent). */
async function again(request: () => Promise<Answer>): Promise<Answer> {
  for (let tries = 1; ; tries += 1) {
    const answer = await request()
    if (answer.status !== 503 || tries === 40) return answer
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
const read = (client: Client, path: string): Promise<Answer> => again(() => client.get(path))

/** The personal fields of the orders as the read API answers them, and their images' bytes. */
async function readOrders(client: Client): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {}
  for (const id of ORDERS) {
    const answer = await read(client, `/v1/orders/${id}`)
    if (answer.status !== 200) throw new Error(`${id}: ${answer.status} ${answer.text}`)
    const order = JSON.parse(answer.text) as Record<string, unknown>
    seen[id] = { status: order.status, ...Object.fromEntries(PERSONAL.map((field) => [field, order[field]])) }
    if (order.pod !== null && order.pod !== undefined) seen[`${id}/pod`] = (await read(client, `/v1/orders/${id}/pod`)).text
  }
  return seen
}

const v1Events = (dataDir: string): number => {
  const db = new Sqlite(join(dataDir, 'events.sqlite'), { readonly: true })
  try {
    return (db.prepare(`SELECT count(*) AS n FROM events WHERE category = 'order' AND json_extract(metadata, '$.schema_version') = 1`).get() as { n: number }).n
  } finally {
    db.close()
  }
}

t.test('a data dir of the previous release sealed: nothing plain left, the same answers, old heads still checked, erasure reaches its orders', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-seal-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const env = {
    WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_SUBJECT_KEY_DIR: join(root, 'subject-keys'),
    WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '5', LOG_LEVEL: 'warn', USER: 'tester',
  }
  await previousReleaseDataDir(dataDir, env.WAYBILL_AUDIT_KEY_DIR)
  const heads = async (): Promise<string> => (await runWaybill(['audit', 'heads'], { env })).stdout

  // The upgraded service runs on it first: it reads the plain events, takes a new order (sealed
  // as it arrives, kept as it is by the seal) and signs heads up to 61.
  let served = await startServe(env)
  let client = await clientFor(served.httpsUrl, dataDir)
  t.match(served.output(), /holds orders stored before personal data was sealed .*until `waybill seal` has run/, 'the start says the log holds orders stored before sealing')
  // Stopped in the test, twice; here only when it ended before.
  let running = true
  t.teardown(async () => {
    if (!running) return
    await client.close()
    await served.stop()
  })
  const added = await again(() => client.post({ event: 'ORDER_ADD', event_date: '2026-11-21T00:00:00Z',
    event_payload: { order_id: 'N-1', customer: 'Customer Nr. 9', location: 'Dock Nr. 99.', status: 'pending', address: 'House 99, Main St', delivery_date: '2026-11-22T00:00:00Z' } }))
  t.equal(added.status, 201, added.text)
  for (let tries = 0; tries < 100 && !(await heads()).includes('"tree_size":61'); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100))
  const before = await readOrders(client)
  t.match(before, { 'P-1': { address: 'House 1, Side St', recipient: 'Recipient Nr. 1.', status: 'completed' }, 'P-4': { reason: 'Customer Nr. 0 asked, order 4.' } },
    'the plain values are served before the seal')
  t.equal(before['P-1/pod'], FIXTURE_IMAGES.pod.toString(), 'and the plain image')
  const retryOfP2 = (): Promise<Answer> => again(() => client.post({ event: 'ORDER_UPDATE', event_date: '2026-11-20T00:03:00Z',
    event_payload: { order_id: 'P-2', status: 'in_progress', address: 'House 2, Side St', delivery_date: '2026-11-20T11:42:00Z' } }))
  t.equal((await retryOfP2()).status, 404, 'before the seal, an order stored plain takes no delivery, a retry neither (docs/personal-data.md)')
  const refusedErase = await runWaybill(['erase', '--account', 'sandbox', '--order', 'P-5', '--reason', 'ticket 8'], { env })
  t.equal(refusedErase.code, 1, 'an erasure of a plain order is refused before the seal')
  t.match(refusedErase.stderr, /waybill seal/, 'pointing at the seal')

  const whileServing = await runWaybill(['seal', '--reason', 'ticket 9'], { env })
  t.equal(whileServing.code, 1, 'refused while serve runs')
  t.match(whileServing.stderr, /in use by another process .*stop the service first; nothing was changed/)
  await client.close()
  running = false
  t.equal(await served.stop(), 0)

  const noReason = await runWaybill(['seal'], { env })
  t.equal(noReason.code, 2, 'refused without --reason')
  t.match(noReason.stderr, /--reason is required/)
  t.equal(v1Events(dataDir), 60, 'neither refusal changed the log')
  t.notOk((await readdir(dataDir)).includes('events.sealed.sqlite'), 'nor wrote a sealed log')

  const keptHeads = join(root, 'kept-heads.jsonl')
  const oldHeads = await heads()
  await writeFile(keptHeads, oldHeads)
  const head21 = join(root, 'head-21.json')
  await writeFile(head21, oldHeads.split('\n').find((line) => line.includes('"tree_size":21')) ?? '')
  t.match(oldHeads, /"tree_size":7,[\s\S]*"tree_size":50,[\s\S]*"tree_size":61,/, 'the heads of the previous release and of the upgraded one')
  const values = allFixtureValues()
  t.ok((await holding(dataDir, values, (path) => !path.startsWith('/events.sqlite'))).length > 0, 'before: the plain values are in the event log')

  const sealed = await runWaybill(['seal', '--reason', 'ticket 9', '--requested-by', 'dpo'], { env })
  t.equal(sealed.code, 0, sealed.stdout + sealed.stderr)
  t.match(sealed.stdout, /sealed 60 version-1 event\(s\) of 24 order\(s\) and 9 image\(s\)/, "every order's images sealed with its own key: 6 proofs of delivery, 3 signatures")
  t.match(sealed.stdout, /old tree of 61 leaves, root [0-9a-f]{64}; new tree of 61 leaves, root [0-9a-f]{64}; signed by key [0-9a-f]{16}; reason "ticket 9", requested by "dpo"/)
  t.match(sealed.stdout, /2 plain image file\(s\) deleted/)
  t.equal(v1Events(dataDir), 0, 'no version-1 event is left')

  t.same(await holding(dataDir, values, (path) => path.startsWith('/read-model')), [],
    'no personal value, image byte or image sha256 in any file of the data dir but the read model (which holds the opened values by design), WAL files included')
  t.same((await readdir(dataDir)).filter((name) => name.startsWith('read-model') && name.endsWith('.sqlite')).length, 1, 'one read model: its earlier files deleted')
  t.same((await readdir(dataDir)).filter((name) => name.startsWith('audit-log') && name.endsWith('.sqlite')).length, 1, 'one audit log: the plain leaves are gone')

  const listed = (await runWaybill(['audit', 'seals'], { env })).stdout.trim().split('\n')
  t.equal(listed.length, 1, 'audit seals lists the seal')
  const record = JSON.parse(listed[0] ?? '{}') as { statement: { old_tree_size: number; reason: string; requested_by: string }; sealed_heads: unknown[]; finished_at: string | null }
  t.match(record, { statement: { old_tree_size: 61, new_tree_size: 61, reason: 'ticket 9', requested_by: 'dpo' }, finished_at: String })
  t.equal(record.sealed_heads.length, oldHeads.trim().split('\n').length, 'with every head signed before it, set aside with its proof')
  t.match(await heads(), /^\{"tree_size":61,[^\n]*\}\n$/, 'the live heads start with the new tree\'s head')
  const verify = await runWaybill(['verify'], { env })
  t.equal(verify.code, 0, verify.stdout)
  for (const kept of [keptHeads, head21]) {
    const audit = await runWaybill(['audit', 'verify', '--head', kept], { env })
    t.equal(audit.code, 0, audit.stdout)
    t.match(audit.stdout, /audit verify: OK/, `a head kept before the seal (${kept.slice(root.length)}) is checked through it`)
  }
  const rehash = await runWaybill(['seal', '--verify'], { env })
  t.equal(rehash.code, 0, rehash.stdout)
  t.match(rehash.stdout, /60 sealed event\(s\) opened back to their plain form; the first 61 order events hash to [0-9a-f]{64}, the old root/)

  // A copy with one sealed event changed in the open: the re-hash catches it.
  const copy = join(root, 'copy')
  await cp(dataDir, copy, { recursive: true })
  const db = new Sqlite(join(copy, 'events.sqlite'))
  t.equal(db.prepare(`UPDATE events SET data = replace(data, '"status":"pending"', '"status":"in_progress"') WHERE stream = 'order-sandbox-P-2' AND revision = 0`).run().changes, 1)
  db.close()
  const tampered = await runWaybill(['seal', '--verify'], { env: { ...env, WAYBILL_DATA_DIR: copy } })
  t.equal(tampered.code, 1, 'the re-hash fails on a changed sealed event')
  t.match(tampered.stdout, /NOT the old root/)

  served = await startServe(env)
  t.notMatch(served.output(), /stored before personal data was sealed/, 'once sealed, the start says nothing of it')
  running = true
  client = await clientFor(served.httpsUrl, dataDir)
  t.same(await readOrders(client), before, 'the read API answers the same values and images after the seal')
  // A courier's retry of a delivery made before the seal is recognised as the same event.
  const retry = await retryOfP2()
  t.equal(retry.status, 202, retry.text)
  t.equal((JSON.parse((await read(client, '/v1/orders/P-2/events')).text) as { events: unknown[] }).events.length, 2, 'and appends nothing')
  await client.close()
  running = false
  t.equal(await served.stop(), 0)
  const newHead = join(root, 'new-head.json')
  await writeFile(newHead, (await heads()).trim().split('\n').at(-1) ?? '')

  const erase = await runWaybill(['erase', '--account', 'sandbox', '--order', 'P-5', '--reason', 'ticket 10'], { env })
  t.equal(erase.code, 0, erase.stderr)
  t.match(erase.stdout, /erased order P-5 \(2 images deleted\)/)
  t.same(await holding(dataDir, fixtureValues(5).map((value) => Buffer.from(value))), [], 'no value of the erased order in any file, the read model included')
  for (const kept of [keptHeads, newHead]) {
    const audit = await runWaybill(['audit', 'verify', '--head', kept], { env })
    t.equal(audit.code, 0, audit.stdout)
  }
  t.equal((await runWaybill(['verify'], { env })).code, 0)

  const second = await runWaybill(['seal', '--reason', 'ticket 11'], { env })
  t.equal(second.code, 0, second.stderr)
  t.match(second.stdout, /nothing to seal: the log was sealed at .*reason "ticket 9"/)
})
