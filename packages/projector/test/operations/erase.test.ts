import { randomBytes } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { openFileBlobStore } from '@waybill/event-store'
import {
  dropEarlierReadModels, eraseExpired, erasePersonalData, exportSubject, PlainOrderError, ReadModel, rebuildReadModel,
  startProjector, UnknownSubjectError, verifyOrders,
} from '../../src/index.js'
import { command, openStore, send, tempDir, TEST_POD, type TestStore } from '../helpers.js'

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...await filesUnder(path))
    else found.push(path)
  }
  return found
}

/** The files under `dir` that hold any of `values`, with the value found. */
async function holding(dir: string, values: readonly Buffer[]): Promise<string[]> {
  const hits: string[] = []
  for (const file of await filesUnder(dir)) {
    const bytes = await readFile(file)
    for (const value of values) if (bytes.includes(value)) hits.push(`${file}: ${value.toString('latin1').slice(0, 40)}`)
  }
  return hits
}

async function project(store: TestStore, dataDir: string): Promise<void> {
  const projector = startProjector({ store, keys: store.keys, dataDir, pollMs: 10 })
  await projector.waitFor((await store.headPosition())!)
  await projector.stop()
}

/** An order with unique personal values, completed with a unique image; the values, to look for. */
async function deliveredOrder(store: TestStore, blobs: Parameters<typeof send>[3], account: string, orderId: string, customer: string): Promise<Buffer[]> {
  const tag = randomBytes(6).toString('hex')
  const values = { location: `Depot ${tag}`, address: `${tag} Unique Lane`, recipient: `Recipient ${tag}` }
  const pod = { ...TEST_POD, bytes: Buffer.from(`\x89PNG image of ${tag}`, 'latin1') }
  const podImage = { ...pod, sha256: (await import('node:crypto')).createHash('sha256').update(pod.bytes).digest('hex') }
  t.equal(await send(store, account, command(account, 'ORDER_ADD', {
    order_id: orderId, event_date: '2025-01-01T10:00:00Z', customer, location: values.location, status: 'pending',
    address: values.address, delivery_date: '2025-01-02T10:00:00Z',
  }), blobs), 'appended')
  t.equal(await send(store, account, command(account, 'ORDER_COMPLETE', {
    order_id: orderId, event_date: '2025-01-02T10:00:00Z', address: values.address, delivery_date: '2025-01-02T10:00:00Z',
    recipient: values.recipient, pod: podImage,
  }), blobs), 'appended')
  return [...Object.values(values).map((value) => Buffer.from(value)), podImage.bytes]
}

t.test('erasure by customer and by order: no byte of the values left under the data dir, the order kept, the log verifiable, others untouched', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  t.teardown(async () => { await store.close(); await dir.remove() })
  const customer = `Customer ${randomBytes(6).toString('hex')}`
  // The customer's name is not among them: the same name in another account is another subject, kept.
  const erasedValues = [
    ...await deliveredOrder(store, blobs, 'acme', 'A-1', customer),
    ...await deliveredOrder(store, blobs, 'acme', 'A-2', customer),
  ]
  const bob = `Bob ${randomBytes(6).toString('hex')}`
  const byOrderValues = [Buffer.from(bob), ...await deliveredOrder(store, blobs, 'acme', 'B-1', bob)]
  const keptValues = await deliveredOrder(store, blobs, 'acme', 'K-1', 'Kept Customer')
  const otherAccount = await deliveredOrder(store, blobs, 'globex', 'A-1', customer)
  await project(store, dir.path)
  // A rebuild keeps the generation it replaced: an erasure must reach that one too.
  await rebuildReadModel({ store, keys: store.keys, dataDir: dir.path })
  t.ok((await holding(dir.path, erasedValues)).length > 0, 'before: the values are in the data dir (the read model)')

  const options = { store, keys: store.keys, blobs, now: () => new Date('2026-02-01T00:00:00Z') }
  const byCustomer = await erasePersonalData(options, { account: 'acme', target: { customer }, requestedBy: 'dpo@example.com', reason: 'ticket 17' })
  t.same(byCustomer.orders, [{ orderId: 'A-1', outcome: 'erased', images: 1 }, { orderId: 'A-2', outcome: 'erased', images: 1 }])
  t.ok(byCustomer.position !== null)
  const byOrder = await erasePersonalData(options, { account: 'acme', target: { order: 'B-1' }, requestedBy: 'dpo@example.com', reason: 'ticket 18' })
  t.same(byOrder.orders, [{ orderId: 'B-1', outcome: 'erased', images: 1 }])
  await project(store, dir.path)
  dropEarlierReadModels(dir.path)

  t.same(await holding(dir.path, [...erasedValues, ...byOrderValues]), [], 'no byte of any erased value in any file under the data dir')
  t.equal((await holding(dir.path, keptValues)).length > 0, true, 'another customer\'s values are still there')
  t.equal((await holding(dir.path, otherAccount.slice(0, 3))).length > 0, true, 'the same customer in another account is another subject')

  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  for (const orderId of ['A-1', 'A-2', 'B-1']) {
    t.match(readModel.getOrder('acme', orderId), {
      status: 'completed', customer: null, location: null, address: null, recipient: null, pod: null, erased_at: '2026-02-01T00:00:00.000Z',
    }, `${orderId} reads as erased, its facts kept`)
  }
  t.match(readModel.getOrder('acme', 'K-1'), { customer: 'Kept Customer', erased_at: null })
  t.match(readModel.getOrder('globex', 'A-1'), { customer, erased_at: null })
  const events = await store.readStream('order-acme-A-1')
  t.same(events.map((event) => event.type), ['OrderAdded', 'OrderCompleted', 'PersonalDataErased'], 'the erasure is in the log')
  t.same(events[2]?.data, { order_id: 'A-1', erased_at: '2026-02-01T00:00:00.000Z', scope: 'customer', requested_by: 'dpo@example.com', reason: 'ticket 17' })
  const report = await verifyOrders({ store, keys: store.keys, readModel })
  t.ok(report.ok, 'verify agrees with the read model')
  t.equal(await send(store, 'acme', command('acme', 'ORDER_ADD', {
    order_id: 'A-1', event_date: '2025-03-01T10:00:00Z', customer, location: 'x', status: 'pending', address: 'y', delivery_date: '2025-03-02T10:00:00Z',
  })), 'erased', 'no new delivery for an erased order')

  const again = await erasePersonalData(options, { account: 'acme', target: { customer }, requestedBy: 'dpo@example.com', reason: 'ticket 17' })
  t.same(again.orders, [], 'a second erasure of the customer finds nothing left to do')
  t.same((await erasePersonalData(options, { account: 'acme', target: { order: 'B-1' }, requestedBy: 'x', reason: 'y' })).orders,
    [{ orderId: 'B-1', outcome: 'already_erased', images: 0 }])
  t.equal((await store.readStream('order-acme-B-1')).length, 3, 'and appends nothing')
  await t.rejects(erasePersonalData(options, { account: 'acme', target: { customer: 'Nobody' }, requestedBy: 'x', reason: 'y' }), UnknownSubjectError)
  await t.rejects(erasePersonalData(options, { account: 'acme', target: { order: 'nope' }, requestedBy: 'x', reason: 'y' }), /no order "nope"/)
})

t.test('an order stored in plain form (before sealing) is refused, nothing changed', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  t.teardown(async () => { await store.close(); await dir.remove() })
  await store.appendToStream('order-acme-OLD', [{
    id: '0f4c7a56-8d8c-5b7e-9f00-000000000001', type: 'OrderAdded', metadata: { received_at: '2024-01-01T00:00:00Z', key_id: 'k', request_id: 'r' },
    data: { order_id: 'OLD', customer: 'Plain Customer', location: 'l', status: 'pending', address: 'a', delivery_date: '2024-01-02T00:00:00Z', event_date: '2024-01-01T00:00:00Z' },
  }], { expectedRevision: 'no_stream' })
  await t.rejects(erasePersonalData({ store, keys: store.keys, blobs }, { account: 'acme', target: { order: 'OLD' }, requestedBy: 'x', reason: 'y' }), PlainOrderError)
  t.equal((await store.readStream('order-acme-OLD')).length, 1, 'nothing appended')
})

t.test('retention erases the orders closed longer ago than it keeps them, by an injected clock', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  t.teardown(async () => { await store.close(); await dir.remove() })
  await deliveredOrder(store, blobs, 'acme', 'OLD', 'c1') // completed 2025-01-02
  t.equal(await send(store, 'acme', command('acme', 'ORDER_ADD', {
    order_id: 'OPEN', event_date: '2025-01-01T10:00:00Z', customer: 'c2', location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-02T10:00:00Z',
  })), 'appended')
  t.equal(await send(store, 'acme', command('acme', 'ORDER_ADD', {
    order_id: 'RECENT', event_date: '2025-03-25T10:00:00Z', customer: 'c3', location: 'l', status: 'pending', address: 'a', delivery_date: '2025-03-26T10:00:00Z',
  })), 'appended')
  t.equal(await send(store, 'acme', command('acme', 'ORDER_CANCELED', { order_id: 'RECENT', event_date: '2025-03-26T10:00:00Z', reason: 'changed mind' })), 'appended')
  await project(store, dir.path)
  const readModel = new ReadModel(dir.path)
  t.teardown(() => readModel.close())
  const run = await eraseExpired({
    store, keys: store.keys, blobs, readModel, keepMs: 30 * 86_400_000, policy: 'retention 30d', now: () => new Date('2025-04-01T00:00:00Z'),
  })
  t.same(run.erased, [{ account: 'acme', orderId: 'OLD' }], 'the order completed 89 days before; not the open one, not the one canceled 6 days before')
  await project(store, dir.path)
  t.match(readModel.getOrder('acme', 'OLD'), { customer: null, erased_at: '2025-04-01T00:00:00.000Z' })
  t.match((await store.readStream('order-acme-OLD')).at(-1)?.data, { scope: 'retention', requested_by: 'waybill retention', reason: 'retention 30d' })
  t.match(readModel.getOrder('acme', 'RECENT'), { customer: 'c3', erased_at: null })
  const later = await eraseExpired({ store, keys: store.keys, blobs, readModel, keepMs: 30 * 86_400_000, policy: 'retention 30d', now: () => new Date('2025-05-01T00:00:00Z') })
  t.same(later.erased, [{ account: 'acme', orderId: 'RECENT' }], 'a month later, the canceled one too')
})

t.test('export: everything held about one customer, opened, with its images and a manifest', async (t) => {
  const dir = await tempDir()
  const store = await openStore(dir.path)
  const blobs = await openFileBlobStore(join(dir.path, 'blobs'))
  t.teardown(async () => { await store.close(); await dir.remove() })
  const values = await deliveredOrder(store, blobs, 'acme', 'E-1', 'Ada Export')
  await deliveredOrder(store, blobs, 'acme', 'E-2', 'Someone Else')
  const out = join(dir.path, '..', 'export')
  const report = await exportSubject({ store, keys: store.keys, blobs, now: () => new Date('2026-01-01T00:00:00Z') }, 'acme', 'Ada Export', out)
  t.same(report.orders, ['E-1'])
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { customer: string; files: Array<{ path: string; sha256: string }> }
  t.equal(manifest.customer, 'Ada Export')
  t.same(manifest.files.map((file) => file.path).sort(), ['orders/E-1.json', 'orders/E-1.pod.png'])
  const order = JSON.parse(await readFile(join(out, 'orders/E-1.json'), 'utf8')) as { order: { customer: string; recipient: string }; events: Array<{ fields: { address: string } }> }
  t.equal(order.order.customer, 'Ada Export')
  t.equal(order.order.recipient, values[2]?.toString())
  t.equal(order.events[0]?.fields.address, values[1]?.toString())
  t.same(await readFile(join(out, 'orders/E-1.pod.png')), values[3], 'the image as sent')
  t.equal(((await stat(join(out, 'manifest.json'))).mode & 0o777), 0o600)
  t.notOk((await readdir(join(out, 'orders'))).some((name) => name.startsWith('E-2')), 'nothing of another customer')
})
