import { readFile, rm } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { canonicalJson, parseOrderStreamName, type ImageMediaType, type ValidDelivery, type WireEvent } from '@waybill/domain'
import { openFileBlobStore, openSqliteEventStore, verifyStreamChain, type RecordedEvent } from '@waybill/event-store'
import { signTreeHead } from '@waybill/merkle'
import { sealDelivery } from '@waybill/personal-data'
import {
  finishSeal, HeadStore, LogInUseError, openSigningKey, rehashSealedLog, replaceLog, verifyAuditLog, writeSealedLog, type SealOptions,
} from '../../src/index.js'
import { PREVIOUS_RELEASE, writePreviousRelease, writePreviousReleaseKey } from '../fixtures/previous-release.js'
import { openStore, tempDir } from '../helpers.js'

const WIRE: Record<string, WireEvent> = { OrderAdded: 'ORDER_ADD', OrderUpdated: 'ORDER_UPDATE', OrderCompleted: 'ORDER_COMPLETE', OrderCanceled: 'ORDER_CANCELED' }

/** The previous release's data dir, its images stored, its key in a key directory, opened for a seal. */
async function sealable(t: Test) {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  await writePreviousRelease(dir.path, { images: true })
  const keyDir = `${dir.path}.audit-key`
  await writePreviousReleaseKey(keyDir)
  let store = await openStore(dir.path)
  t.teardown(() => store.close())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  const options = (): SealOptions => ({
    store, blobs, keys: store.keys, dataDir: dir.path, heads, signingKey: openSigningKey(keyDir, heads, { create: false }),
    sealedLogPath: join(dir.path, 'events.sealed.sqlite'), reason: 'ticket 9', requestedBy: 'dpo',
  })
  const reopen = async () => {
    await store.close()
    store = await openStore(dir.path)
    return store
  }
  return { dataDir: dir.path, heads, blobs, options, reopen, store: () => store }
}

/** The delivery a version-1 event was made from, as the ingress would take it today (images decoded). */
async function deliveryOf(event: RecordedEvent): Promise<ValidDelivery> {
  const { event_date: eventDate, ...payload } = event.data as Record<string, unknown>
  for (const field of ['pod', 'signature']) {
    const ref = payload[field] as { sha256: string; media_type: ImageMediaType } | undefined
    if (ref === undefined) continue
    const bytes = await readFile(join(PREVIOUS_RELEASE, `${field}.png`))
    payload[field] = { sha256: ref.sha256, media_type: ref.media_type, bytes }
  }
  return { event: WIRE[event.type], event_date: eventDate, payload } as ValidDelivery
}

t.test('a seal writes every event as the ingress seals a delivery today, hashing back to the old root, and sets the old heads aside with proofs', async (t) => {
  const { dataDir, heads, blobs, options, reopen, store } = await sealable(t)
  const before = await store().readAll({ maxCount: 1000 })
  const oldHeads = [...heads.all()]
  const plan = await writeSealedLog(options())
  t.match(plan, { events: 60, orders: 24, images: 9 }, '60 plain events of 24 orders; 6 proofs of delivery and 3 signatures, each sealed with its own order\'s key')
  const [seal] = heads.seals()
  t.same(seal?.sealed_heads.map(({ head }) => head), oldHeads, 'every head signed before is set aside')
  t.same([...heads.all()], [seal?.new_head], 'and the live heads start with the new tree\'s')
  t.match(seal?.statement, { old_tree_size: 60, new_tree_size: 60, reason: 'ticket 9', requested_by: 'dpo' })
  t.equal(seal?.finished_at, null, 'not finished until the sealed log is in place')
  t.same(await store().readAll({ maxCount: 1000 }), before, 'the live log is untouched')

  const sealed = await openSqliteEventStore({ path: options().sealedLogPath, writer: 'inline' })
  const after = await sealed.readAll({ maxCount: 1000 })
  t.equal(after.length, before.length)
  for (const [index, event] of after.entries()) {
    const old = before[index] as RecordedEvent
    const name = parseOrderStreamName(old.streamName)
    if (name === null) {
      t.same(event, old, 'the key event is copied as it was')
      continue
    }
    t.same([event.position, event.streamName, event.revision, event.createdAt, event.metadata.received_at],
      [old.position, old.streamName, old.revision, old.createdAt, old.metadata.received_at])
    const delivery = await sealDelivery(store().keys, name.account, await deliveryOf(old))
    if (!delivery.ok) throw new Error(`${old.streamName}: ${delivery.refusal}`)
    if (event.id !== delivery.command.eventId || canonicalJson(event.data) !== canonicalJson(delivery.command.data)) {
      t.fail(`${old.streamName} revision ${old.revision} is not what the ingress makes of its delivery today`)
    }
  }
  t.pass('each sealed event has the id and data the ingress gives its delivery today: a retry is recognised')
  const streams = [...new Set(after.map((event) => event.streamName))]
  for (const stream of streams) t.same(verifyStreamChain(await sealed.readStream(stream)), { ok: true }, `${stream} chained again`)
  const rehash = await rehashSealedLog(sealed, store().keys, 60)
  t.equal(rehash.root, seal?.statement.old_root_hash, 'opened back, the sealed log hashes to the old root')
  await sealed.close()

  await t.rejects(finishSeal({ store: store(), blobs: options().blobs, keys: store().keys, dataDir, heads, seal: seal! }), /not the sealed one/,
    'finishing is refused while the plain log is in place')
  t.throws(() => replaceLog(join(dataDir, 'events.sqlite'), options().sealedLogPath), LogInUseError, 'the swap is refused while the log is open')
  await store().close()
  replaceLog(join(dataDir, 'events.sqlite'), options().sealedLogPath)
  await reopen()
  const finished = await finishSeal({ store: store(), blobs: options().blobs, keys: store().keys, dataDir, heads, seal: seal! })
  t.equal(finished.plainImages, 2, 'the two plain images are deleted')
  t.not(heads.seals()[0]?.finished_at, null)
  const images = [await readFile(join(PREVIOUS_RELEASE, 'pod.png')), await readFile(join(PREVIOUS_RELEASE, 'signature.png'))]
  for (const bytes of images) t.equal(await blobs.get(createHash('sha256').update(bytes).digest('hex')), null)

  const audit = (keptHead?: typeof oldHeads[number]) => verifyAuditLog({
    store: store(), blobs, keys: heads.keys(), anchors: null, heads: heads.all(), seals: heads.seals(), ...(keptHead === undefined ? {} : { keptHead }),
  })
  for (const head of oldHeads) t.same((await audit(head)).findings, [], `a kept head at ${head.tree_size} checks through the seal`)
  t.same((await audit(seal?.closing_head)).findings, [], 'the closing head checks through the seal')
  t.same((await audit(seal?.new_head)).findings, [], 'and the new head against the live tree')
  const key = options().signingKey.privateKey
  const forged = signTreeHead(key, 21, 'ab'.repeat(32), new Date(oldHeads[1]?.timestamp ?? ''))
  t.match((await audit(forged)).findings, [{ kind: 'seal', message: /your kept head 21 .* set aside no such head/ }], 'a head of another history signed before the seal fails')
  const db = new Sqlite(join(dataDir, 'audit-heads.sqlite'))
  db.prepare(`UPDATE sealed_heads SET proof = ? WHERE tree_size = 21`).run(JSON.stringify(['00'.repeat(32)]))
  db.prepare(`UPDATE seals SET statement = json_set(statement, '$.reason', 'another reason')`).run()
  db.close()
  const tampered = (await audit()).findings.map((finding) => finding.message)
  t.match(tampered, [/statement does not verify/, /head 21 .* is not consistent with its closing head/], 'a changed proof or statement fails')
})

t.test('an image of a plain event that is missing refuses the seal: nothing is signed or recorded', async (t) => {
  const { heads, options, store } = await sealable(t)
  const pod = await readFile(join(PREVIOUS_RELEASE, 'pod.png'))
  await options().blobs.remove(createHash('sha256').update(pod).digest('hex'))
  const oldHeads = [...heads.all()]
  await t.rejects(writeSealedLog(options()), /image [0-9a-f]{64} of order-sandbox-P-1 revision 2 is missing: it cannot be sealed/)
  t.same(heads.seals(), [])
  t.same([...heads.all()], oldHeads, 'the heads are as they were')
  t.equal((await store().readAll({ maxCount: 1000 })).filter((event) => event.metadata.schema_version === 1).length, 60, 'and the log')
  await rm(options().sealedLogPath, { force: true })
})

t.test('the re-hash names what it cannot open: a sealed part changed, an order erased since', async (t) => {
  const { options, store } = await sealable(t)
  await writeSealedLog(options())
  const path = options().sealedLogPath
  const db = new Sqlite(path)
  const { data } = db.prepare(`SELECT data FROM events WHERE stream = 'order-sandbox-P-2' AND revision = 1`).get() as { data: string }
  const changed = JSON.parse(data) as { personal: { box: string } }
  changed.personal.box = `A${changed.personal.box.slice(1)}` === changed.personal.box ? `B${changed.personal.box.slice(1)}` : `A${changed.personal.box.slice(1)}`
  db.prepare(`UPDATE events SET data = ? WHERE stream = 'order-sandbox-P-2' AND revision = 1`).run(JSON.stringify(changed))
  db.close()
  const sealed = await openSqliteEventStore({ path, writer: 'inline' })
  t.teardown(() => sealed.close())
  const broken = await rehashSealedLog(sealed, store().keys, 60)
  t.equal(broken.root, null)
  t.match(broken.problems, [/order-sandbox-P-2 revision 1: a sealed value does not open with its key/])
  await store().keys.erase('globex', ['P-0'], { at: new Date().toISOString(), scope: 'order', requestedBy: 'dpo', reason: 'ticket 10' })
  const erased = await rehashSealedLog(sealed, store().keys, 60)
  t.match(erased, { root: null, opened: 0, problems: [/order-globex-P-0 revision 0: its order was erased since the seal: it cannot be opened/] })
  t.match(await rehashSealedLog(sealed, store().keys, 0), { root: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', problems: [] }, 'an empty tree needs no key')
})
