import { createHash } from 'node:crypto'
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { logOf } from './backup-fixture.js'
import { addBody, clientFor, completeBody, PNG_DATA_URL, type Client } from './https-client.js'
import { serve } from './waybill-process.js'
import { runWaybill, startServe } from '../src/testing.js'

/** What a client was told was stored: an event of an order, its image if it has one, and when the answer came. */
interface Ack { readonly orderId: string; readonly type: 'OrderAdded' | 'OrderCompleted'; readonly image: Buffer | null; readonly at: number }

const WRITERS = 8
const PNG = Buffer.from(PNG_DATA_URL.slice(PNG_DATA_URL.indexOf(',') + 1), 'base64')

/** A proof of delivery of its own for each order: the PNG with the order id after its end (the service checks the signature). */
function imageOf(orderId: string): Buffer {
  return Buffer.concat([PNG, Buffer.from(orderId)])
}

/** Writes orders until told to stop: each added, every other one delivered with an image of its own. */
async function write(client: Client, writer: number, acks: Ack[], stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n += 1) {
    const orderId = `W${writer}-${n}`
    if ((await client.post(addBody(orderId))).status !== 201) continue
    acks.push({ orderId, type: 'OrderAdded', image: null, at: performance.now() })
    if (n % 2 !== 0) continue
    const image = imageOf(orderId)
    const body = completeBody(orderId)
    const sent = { ...body, event_payload: { ...body.event_payload, pod: `data:image/png;base64,${image.toString('base64')}` } }
    if ((await client.post(sent)).status === 202) acks.push({ orderId, type: 'OrderCompleted', image, at: performance.now() })
  }
}

/** Resolves once at least `count` events are acknowledged (or after 60 s, which the assertions then show). */
async function acknowledged(acks: readonly Ack[], count: number): Promise<void> {
  for (let waited = 0; acks.length < count && waited < 60_000; waited += 50) await sleep(50)
}

interface Taken { readonly dir: string; readonly sequence: number; readonly position: string; readonly before: readonly Ack[]; readonly during: number }

t.test('backups taken while 8 clients write through `waybill serve` in another process restore into data dirs that verify, hold every acknowledged order with its image, and serve', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-backup-load-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const env = { WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '25', LOG_LEVEL: 'warn' }
  const served = await serve(env)
  t.teardown(() => served.stop())
  const clients = await Promise.all(Array.from({ length: WRITERS }, () => clientFor(served.httpsUrl, dataDir, { connections: 1 })))
  t.teardown(() => Promise.all(clients.map((client) => client.close())))
  const acks: Ack[] = []
  let stop = false
  const writers = clients.map((client, writer) => write(client, writer, acks, () => stop))

  // Into one directory three times (a full backup, then two incremental ones), and once into
  // another, each after the clients have written more; the clients keep writing throughout.
  const taken: Taken[] = []
  for (const name of ['a', 'a', 'b', 'a']) {
    await acknowledged(acks, acks.length + 30)
    const before = [...acks]
    const backup = await runWaybill(['backup', join(root, name), '--json'], { env })
    t.equal(backup.code, 0, backup.stderr)
    const manifest = JSON.parse(backup.stdout) as { sequence: number; log: { position: string } }
    taken.push({ dir: join(root, name), sequence: manifest.sequence, position: manifest.log.position, before, during: acks.length - before.length })
  }
  stop = true
  await Promise.all(writers)
  t.equal(await served.stop(), 0)
  t.same(taken.map(({ sequence }) => sequence), [1, 2, 1, 3])
  t.ok(taken.every(({ before }, i) => i === 0 || before.length > taken[i - 1]!.before.length), 'the clients wrote between the backups')
  t.ok(taken.reduce((sum, { during }) => sum + during, 0) > 0,
    `and while they ran: ${taken.map(({ during }) => during).join(', ')} events acknowledged during each of the ${taken.length} backups, ${acks.length} in all`)
  const live = await logOf(dataDir)

  /** Restores `dir` (with `args`) into a new data dir, and checks it as an operator would: verify, audit verify, serve. */
  const restore = async (name: string, dir: string, args: readonly string[] = []) => {
    const restored = join(root, `restored-${name}`)
    const restoredEnv = { ...env, WAYBILL_DATA_DIR: restored }
    const run = await runWaybill(['restore', dir, ...args], { env: restoredEnv })
    t.equal(run.code, 0, run.code === 0 ? `restore ${name}` : run.stdout + run.stderr)
    t.match(run.stdout, /restore: OK/)
    t.equal((await runWaybill(['verify'], { env: restoredEnv })).code, 0, `${name}: waybill verify`)
    t.equal((await runWaybill(['audit', 'verify'], { env: restoredEnv })).code, 0, `${name}: waybill audit verify, every image included`)
    const log = await logOf(restored)
    // The restored data dir runs: a new order is accepted and read back (the key is in the restored log; its sandbox file is not restored).
    await copyFile(join(dataDir, 'test-api-key'), join(restored, 'test-api-key'))
    const again = await startServe(restoredEnv)
    const reader = await clientFor(again.httpsUrl, restored)
    // A 503 under the machine's load (the server sheds load when its event loop lags) says: retry.
    let added = await reader.post(addBody('AFTER-RESTORE'))
    for (let tries = 0; added.status === 503 && tries < 50; tries += 1) added = await sleep(200).then(() => reader.post(addBody('AFTER-RESTORE')))
    t.equal(added.status, 201, `${name}: a new order is accepted`)
    let read = await reader.get('/v1/orders/AFTER-RESTORE')
    for (let tries = 0; read.status !== 200 && tries < 100; tries += 1) read = await sleep(100).then(() => reader.get('/v1/orders/AFTER-RESTORE'))
    t.equal(read.status, 200, `${name}: and read back`)
    await reader.close()
    t.equal(await again.stop(), 0)
    return { restored, log }
  }

  /** Every event acknowledged before the backup began is in the restored log, and every image it sent is in the restored data dir. */
  const holds = async (name: string, restored: string, log: Awaited<ReturnType<typeof logOf>>, before: readonly Ack[]) => {
    const stored = new Set(log.map((event) => `${event.streamName}/${event.type}`))
    t.same(before.filter((ack) => !stored.has(`order-sandbox-${ack.orderId}/${ack.type}`)), [], `${name}: every one of the ${before.length} events acknowledged before the backup began`)
    const images = before.flatMap((ack) => ack.image === null ? [] : [ack.image])
    const absent: string[] = []
    for (const image of images) {
      const sha256 = createHash('sha256').update(image).digest('hex')
      const bytes = await readFile(join(restored, 'blobs', sha256.slice(0, 2), sha256.slice(2))).catch(() => null)
      if (bytes === null || !bytes.equals(image)) absent.push(sha256)
    }
    t.same(absent, [], `${name}: with each of their ${images.length} images, byte for byte`)
  }

  // Each backup as it was taken: the latest of each directory whole, the earlier ones of "a" by their position.
  const [a1, a2, b1, a3] = taken as [Taken, Taken, Taken, Taken]
  for (const [name, backup, args] of [['a-latest', a3, []], ['a-first', a1, ['--to-position', a1.position]],
    ['a-second', a2, ['--to-position', a2.position]], ['b', b1, []]] as const) {
    const { restored, log } = await restore(name, backup.dir, args)
    t.same(log.map((event) => event.id), live.filter((event) => event.position.commit <= BigInt(backup.position)).map((event) => event.id),
      `${name}: exactly the log up to the backup's position ${backup.position}`)
    await holds(name, restored, log, backup.before)
  }

  // To a time in the middle of what "b" holds: exactly the events the store wrote up to then.
  const inB = live.filter((event) => event.position.commit <= BigInt(b1.position))
  const cut = inB[Math.floor(inB.length / 2)]!.createdAt
  const { log: timed } = await restore('b-to-time', b1.dir, ['--to-time', cut.toISOString()])
  const expected = live.filter((event) => event.createdAt.getTime() <= cut.getTime())
  t.ok(expected.length > 0 && expected.length < inB.length, `the cut at ${cut.toISOString()} is inside the backup (${expected.length} of its ${inB.length} events)`)
  t.same(timed.map((event) => event.id), expected.map((event) => event.id), 'b to a time: exactly the events written up to that time')
})
