import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import t from 'tap'
import { runWaybill, startServe } from '../src/testing.js'
import { holding } from './files-holding.js'
import { clientFor } from './https-client.js'

/** A PNG of its own: one unique row of pixels, so its bytes (and their deflate) are found nowhere else. */
function uniquePng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (bytes: Buffer): number => {
    let c = 0xffffffff
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const sum = Buffer.alloc(4)
    sum.writeUInt32BE(crc(body))
    return Buffer.concat([length, body, sum])
  }
  const width = 64
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(1, 4)
  header[8] = 8
  header[9] = 0
  const row = Buffer.concat([Buffer.from([0]), randomBytes(width)])
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(row, { level: 0 })), chunk('IEND', Buffer.alloc(0))])
}

t.test('erasure by customer and by order, with a backup taken before: nothing of the values left, the log verifiable against kept heads, the backup restored erased', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-erasure-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const env = {
    WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '1',
    WAYBILL_SUBJECT_KEY_DIR: join(root, 'subject-keys'), LOG_LEVEL: 'warn',
  }
  const served = await startServe(env)
  const client = await clientFor(served.httpsUrl, dataDir)
  // Stopped in the middle of the test, before the restore; here only if it ended before.
  let running = true
  const stop = async (): Promise<void> => {
    if (!running) return
    running = false
    await client.close()
    await served.stop()
  }
  t.teardown(stop)

  // Unique values for two subjects to erase (a customer with two orders, and one order of another) and one to keep.
  const tag = (name: string): string => `${name} ${randomBytes(6).toString('hex')}`
  const erasedValues: Buffer[] = []
  const keptValues: Buffer[] = []
  const send = async (body: unknown): Promise<void> => {
    const answer = await client.post(body)
    if (answer.status !== 201 && answer.status !== 202) throw new Error(`${answer.status} ${answer.text}`)
  }
  const order = async (orderId: string, customer: string, into: Buffer[]): Promise<void> => {
    const values = { location: tag('Depot'), address: tag('Lane'), recipient: tag('Recipient') }
    const png = uniquePng()
    into.push(...Object.values(values).map((value) => Buffer.from(value)), png.subarray(40, 100))
    await send({ event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z', event_payload: {
      order_id: orderId, customer, location: values.location, status: 'pending', address: values.address, delivery_date: '2025-03-02T10:00:00Z' } })
    await send({ event: 'ORDER_COMPLETE', event_date: '2025-03-02T10:00:00Z', event_payload: {
      order_id: orderId, address: values.address, delivery_date: '2025-03-02T10:00:00Z', recipient: values.recipient, pod: `data:image/png;base64,${png.toString('base64')}` } })
  }
  const ada = tag('Ada')
  const bob = tag('Bob')
  erasedValues.push(Buffer.from(ada), Buffer.from(bob))
  await order('A-1', ada, erasedValues)
  await order('A-2', ada, erasedValues)
  await order('B-1', bob, erasedValues)
  const kim = tag('Kim')
  keptValues.push(Buffer.from(kim))
  await order('K-1', kim, keptValues)

  // Heads an auditor kept, and a backup, both before the erasure.
  const heads = async (): Promise<string> => (await runWaybill(['audit', 'heads'], { env })).stdout
  for (let tries = 0; tries < 100 && !(await heads()).includes('"tree_size":8'); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100))
  const kept = join(root, 'kept-heads.jsonl')
  await writeFile(kept, await heads())
  const backup = await runWaybill(['backup', join(root, 'backup')], { env })
  t.equal(backup.code, 0, backup.stdout + backup.stderr)
  t.ok((await holding(dataDir, erasedValues)).length > 0, 'before: the values are in the data dir (the read model)')

  const byCustomer = await runWaybill(['erase', '--account', 'sandbox', '--customer', ada, '--reason', 'ticket 31', '--requested-by', 'dpo'], { env })
  t.equal(byCustomer.code, 0, byCustomer.stderr)
  t.match(byCustomer.stdout, /erased order A-1 \(1 image deleted\)\nerased order A-2 \(1 image deleted\)/)
  const byOrder = await runWaybill(['erase', '--account', 'sandbox', '--order', 'B-1', '--reason', 'ticket 32'], { env })
  t.equal(byOrder.code, 0, byOrder.stderr)

  t.same(await holding(dataDir, erasedValues), [], 'no byte of any erased value, strings or image bytes, in any file under the data dir')
  t.ok((await holding(dataDir, keptValues)).length > 0, 'another customer\'s values are still there')
  for (const id of ['A-1', 'A-2', 'B-1']) {
    const read = JSON.parse((await client.get(`/v1/orders/${id}`)).text) as Record<string, unknown>
    t.match(read, { customer: null, location: null, address: null, recipient: null, pod: null, erased_at: String, status: 'completed' }, `${id} reads as erased`)
    t.equal((await client.get(`/v1/orders/${id}/pod`)).status, 404, `${id}'s image is gone`)
  }
  t.match(JSON.parse((await client.get('/v1/orders/K-1')).text), { customer: kim, erased_at: null }, 'another customer untouched')
  const verify = await runWaybill(['verify'], { env })
  t.equal(verify.code, 0, verify.stdout)
  const audit = await runWaybill(['audit', 'verify', '--head', kept], { env })
  t.equal(audit.code, 0, audit.stdout)
  t.match(audit.stdout, /audit verify: OK/, 'the log verifies against heads signed before the erasure')

  const again = await runWaybill(['erase', '--account', 'sandbox', '--customer', ada, '--reason', 'ticket 31'], { env })
  t.equal(again.code, 0)
  t.match(again.stdout, /already erased/)
  const unknown = await runWaybill(['erase', '--account', 'sandbox', '--order', 'NOPE', '--reason', 'x'], { env })
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /no order "NOPE"/)
  const exported = await runWaybill(['export', '--account', 'sandbox', '--customer', kim, join(root, 'export')], { env })
  t.equal(exported.code, 0, exported.stderr)
  t.match(await readFile(join(root, 'export', 'orders', 'K-1.json'), 'utf8'), kim, 'an access request gets the kept customer\'s data')

  // The backup from before the erasure, restored (with the same subject key store): erased there too.
  await stop()
  const restoredEnv = { ...env, WAYBILL_DATA_DIR: join(root, 'restored') }
  const restore = await runWaybill(['restore', join(root, 'backup')], { env: restoredEnv })
  t.equal(restore.code, 0, restore.stdout + restore.stderr)
  t.match(restore.stdout, /3 erasure\(s\) made after this backup appended/)
  const replay = await runWaybill(['replay', 'A-1', '--json'], { env: restoredEnv })
  const replayed = JSON.parse(replay.stdout) as { events: Array<{ type: string; erased?: boolean; fields?: Record<string, unknown> }> }
  t.same(replayed.events.map((event) => event.type), ['OrderAdded', 'OrderCompleted', 'PersonalDataErased'])
  t.match(replayed.events[0]?.fields, { customer: null, address: null }, 'the restored order opens to nothing')
  t.same(await holding(join(root, 'backup'), erasedValues.slice(2)), [], 'and the backup itself holds none of the values in the open')
})
