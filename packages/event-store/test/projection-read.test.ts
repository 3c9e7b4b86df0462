import { randomUUID } from 'node:crypto'
import t from 'tap'
import { canonicalJson } from '@waybill/domain'
import { type EventData, type RecordedEvent } from '../src/index.js'
import { freshStore } from './store-fixture.js'

const event = (type: string, n: number): EventData => ({
  id: randomUUID(), type, data: { n, nested: { list: [n, 'x', null] } },
  metadata: { received_at: `2025-01-01T00:00:${String(n % 60).padStart(2, '0')}Z`, key_id: `k${n}`, count: n, flag: n % 2 === 0 },
})

/** What a projection sees of a full event: everything but hash and creation time. */
const projected = (e: RecordedEvent, metadata: Record<string, unknown>) =>
  ({ streamName: e.streamName, id: e.id, type: e.type, data: e.data, metadata, revision: e.revision, position: e.position })

t.test('readAllForProjection reads what readAll reads, with only the metadata keys asked for', async (t) => {
  const store = await freshStore(t, { readAllBatchSize: 7 })
  for (let n = 0; n < 30; n += 1) {
    const category = ['order', 'apikey', 'other'][n % 3]!
    await store.appendToStream(`${category}-s${n % 4}`, [event(`T${n % 3}`, n)])
  }
  const all = await store.readAll({ maxCount: 100 })
  t.equal(all.length, 30)

  const keys = ['received_at', 'count', 'flag', 'missing']
  const pick = (e: RecordedEvent) => Object.fromEntries(keys.filter((k) => k in e.metadata).map((k) => [k, e.metadata[k]]))
  t.same(await store.readAllForProjection({ maxCount: 100, metadataKeys: keys }), all.map((e) => projected(e, pick(e))),
    'every event, in log order, metadata values keep their JSON types, an absent key stays absent')
  t.same(await store.readAllForProjection({ maxCount: 100 }), all.map((e) => projected(e, e.metadata)),
    'without metadataKeys the whole metadata comes back')
  t.same(await store.readAllForProjection({ maxCount: 100, metadataKeys: [] }), all.map((e) => projected(e, {})))

  for (const categories of [['order'], ['order', 'apikey'], []]) {
    const expected = await store.readAll({ maxCount: 100, categories })
    const got = await store.readAllForProjection({ maxCount: 100, categories, metadataKeys: ['received_at'] })
    t.same(got.map((e) => [e.streamName, e.revision, e.position]), expected.map((e) => [e.streamName, e.revision, e.position]),
      `categories ${JSON.stringify(categories)}`)
  }

  const after = all[10]!.position
  t.same((await store.readAllForProjection({ after, maxCount: 5, categories: ['order'] })).map((e) => e.position),
    (await store.readAll({ after, maxCount: 5, categories: ['order'] })).map((e) => e.position), 'after and maxCount')
  t.equal((await store.readAllForProjection()).length, 7, 'the store\'s default batch size, as readAll')

  const pickData = (e: RecordedEvent) => Object.fromEntries(['n', 'missing'].filter((k) => k in e.data).map((k) => [k, e.data[k]]))
  t.same(await store.readAllForProjection({ maxCount: 100, dataKeys: ['n', 'missing'], metadataKeys: ['count'] }),
    all.map((e) => ({ ...projected(e, { count: e.metadata['count'] }), data: pickData(e) })), 'only the data members asked for')
  const withText = await store.readAllForProjection({ maxCount: 100, dataKeys: ['n'], dataText: true, metadataKeys: [] })
  t.same(withText.map((e) => e.dataText), all.map((e) => canonicalJson(e.data)), 'the data\'s text: its canonical JSON')
  t.same(withText.map((e) => e.data), all.map((e) => ({ n: e.data['n'] })))
  t.same((await store.readAllForProjection({ maxCount: 100, dataText: true })).map((e) => [e.data, e.dataText]),
    all.map((e) => [e.data, canonicalJson(e.data)]), 'the text beside the whole data')
  await t.rejects(store.readAllForProjection({ dataKeys: ["x') OR 1=1 --"] }), RangeError)
  await t.rejects(store.readAllForProjection({ metadataKeys: ["x') OR 1=1 --"] }), RangeError,
    'a metadata key is part of the SQL text, so only plain names are taken')
})
