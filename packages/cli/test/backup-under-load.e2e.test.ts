import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { logOf } from './backup-fixture.js'
import { addBody, clientFor, completeBody, type Client } from './https-client.js'
import { serve } from './waybill-process.js'
import { runWaybill, startServe } from '../src/testing.js'

/** What a client was told was stored: an event of an order, and when the answer came. */
interface Ack { readonly orderId: string; readonly type: 'OrderAdded' | 'OrderCompleted'; readonly at: number }

/** Writes orders until told to stop: each added, every other one delivered with an image. */
async function write(client: Client, writer: number, acks: Ack[], stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n += 1) {
    const orderId = `W${writer}-${n}`
    if ((await client.post(addBody(orderId))).status !== 201) continue
    acks.push({ orderId, type: 'OrderAdded', at: performance.now() })
    if (n % 2 === 0 && (await client.post(completeBody(orderId))).status === 202) acks.push({ orderId, type: 'OrderCompleted', at: performance.now() })
  }
}

t.test('backups taken while clients write through `waybill serve` in another process restore into data dirs that verify, hold every acknowledged order, and serve', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-backup-load-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const env = { WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '25', LOG_LEVEL: 'warn' }
  const served = await serve(env)
  t.teardown(() => served.stop())
  const client = await clientFor(served.httpsUrl, dataDir, { connections: 8 })
  t.teardown(() => client.close())
  const acks: Ack[] = []
  let stop = false
  const writers = Array.from({ length: 4 }, (_, writer) => write(client, writer, acks, () => stop))

  // Into one directory twice (the second incremental), and into another: each while the writers write.
  const taken: Array<{ dir: string; before: Ack[] }> = []
  for (const name of ['a', 'a', 'b']) {
    await sleep(600)
    const before = acks.filter((ack) => ack.at < performance.now())
    const backup = await runWaybill(['backup', join(root, name)], { env })
    t.equal(backup.code, 0, backup.stderr)
    taken.push({ dir: join(root, name), before })
  }
  stop = true
  await Promise.all(writers)
  t.ok(taken[0]!.before.length > 0 && taken[2]!.before.length > taken[0]!.before.length, `the writers wrote during the backups (${acks.length} acknowledged events)`)

  for (const [i, { dir, before }] of taken.entries()) {
    if (i === 0) continue // its directory was backed up into again: the restore of "a" is the second one's
    const restored = join(root, `restored-${i}`)
    const restore = await runWaybill(['restore', dir], { env: { ...env, WAYBILL_DATA_DIR: restored } })
    t.equal(restore.code, 0, restore.code === 0 ? `restore of ${dir}` : restore.stdout + restore.stderr)
    t.equal((await runWaybill(['verify'], { env: { ...env, WAYBILL_DATA_DIR: restored } })).code, 0, 'verify')
    t.equal((await runWaybill(['audit', 'verify'], { env: { ...env, WAYBILL_DATA_DIR: restored } })).code, 0, 'audit verify, every image included')
    const stored = new Set((await logOf(restored)).map((event) => `${event.streamName}/${event.type}`))
    const missing = before.filter((ack) => !stored.has(`order-sandbox-${ack.orderId}/${ack.type}`))
    t.same(missing, [], `every one of the ${before.length} events acknowledged before the backup began is restored`)

    // The restored data dir runs: a new order is accepted and read back (the operator's key is in the restored log).
    await copyFile(join(dataDir, 'test-api-key'), join(restored, 'test-api-key'))
    const again = await startServe({ ...env, WAYBILL_DATA_DIR: restored })
    const reader = await clientFor(again.httpsUrl, restored)
    t.equal((await reader.post(addBody('AFTER-RESTORE'))).status, 201)
    let read = await reader.get('/v1/orders/AFTER-RESTORE')
    for (let tries = 0; read.status !== 200 && tries < 100; tries += 1) read = await sleep(100).then(() => reader.get('/v1/orders/AFTER-RESTORE'))
    t.equal(read.status, 200, 'and read back')
    await reader.close()
    t.equal(await again.stop(), 0)
  }
  t.equal(await served.stop(), 0)
})
