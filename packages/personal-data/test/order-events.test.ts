import { createHash, randomBytes } from 'node:crypto'
import t from 'tap'
import { toCommand, upcastOrderEvent, type DecodedImage, type OrderEvent } from '@waybill/domain'
import { imageContext, MissingKeyError, openImage, openOrderEvent, orderEventOpener, orderSealer, SealBrokenError, type OrderKey } from '../src/index.js'

const STREAM = 'order-acme-A-1'
const key: OrderKey = { id: 'key-1', secret: randomBytes(32) }
const image = (bytes: Buffer, media_type: DecodedImage['media_type']): DecodedImage => ({ bytes, media_type, sha256: createHash('sha256').update(bytes).digest('hex') })
const pod = image(randomBytes(2000), 'image/png')
const signature = image(randomBytes(500), 'image/jpeg')

const completion = () => toCommand('acme', {
  event: 'ORDER_COMPLETE', event_date: '2025-03-02T11:31:00Z',
  payload: { order_id: 'A-1', address: '2 Quay Street', delivery_date: '2025-03-02T11:30:00Z', recipient: 'Ada Lovelace', pod, signature },
}, orderSealer(key, STREAM))
const asEvent = (command: ReturnType<typeof completion>): OrderEvent => ({ type: 'OrderCompleted', data: command.data } as OrderEvent)

t.test('a delivery sealed with its order\'s key opens to what was sent; the same delivery seals the same', async (t) => {
  const command = completion()
  t.notMatch(JSON.stringify(command.data), /Ada|Quay/, 'no personal value in the stored data')
  t.same(completion(), command, 'deterministic: an exact retry is the same event, with the same id')
  const opened = openOrderEvent(STREAM, asEvent(command), key)
  t.same(opened, {
    type: 'OrderCompleted', erased: false,
    data: {
      order_id: 'A-1', delivery_date: '2025-03-02T11:30:00Z', event_date: '2025-03-02T11:31:00Z', address: '2 Quay Street', recipient: 'Ada Lovelace',
      pod: { sha256: pod.sha256, media_type: 'image/png', bytes: 2000 }, signature: { sha256: signature.sha256, media_type: 'image/jpeg', bytes: 500 },
    },
  })
  t.throws(() => openOrderEvent('order-acme-A-2', asEvent(command), key), SealBrokenError, 'the same sealed part in another order')
})

t.test('the images a delivery carries are sealed blobs named by the sha256 of what is stored', async (t) => {
  const sealer = orderSealer(key, STREAM)
  const [podBlob, signatureBlob] = sealer.blobs([pod, signature])
  if (podBlob === undefined || signatureBlob === undefined) throw new Error('two blobs expected')
  t.equal(podBlob.sha256, createHash('sha256').update(podBlob.bytes).digest('hex'))
  t.not(podBlob.sha256, pod.sha256, 'not the image\'s own hash: that one is personal')
  t.equal(podBlob.bytes.indexOf(pod.bytes.subarray(0, 64)), -1)
  t.same(openImage(key, imageContext(STREAM), podBlob.bytes), pod.bytes)
  t.same(sealer.image(pod), { blob: podBlob.sha256, media_type: 'image/png', bytes: 2000 }, 'the reference the event keeps')
  t.equal(sealer.blobs([pod])[0], podBlob, 'sealed once per delivery')
  const completed = completion()
  t.equal(completed.type === 'ORDER_COMPLETE' ? completed.data.pod.blob : null, podBlob.sha256)
})

t.test('opening: erased keys give nulls, a missing key is an error, plain parts read as written', async (t) => {
  const command = completion()
  t.match(openOrderEvent(STREAM, asEvent(command), 'erased'), { erased: true, data: { address: null, recipient: null, pod: null, signature: null, order_id: 'A-1' } })
  t.throws(() => openOrderEvent(STREAM, asEvent(command), null), MissingKeyError)
  t.throws(() => openOrderEvent(STREAM, asEvent(command), null), { message: /no key key-1 for order-acme-A-1 .*WAYBILL_SUBJECT_KEY_DIR/ })
  const v1 = upcastOrderEvent({ id: 'e', type: 'OrderCanceled', data: { order_id: 'A-1', reason: 'moved away', event_date: '2025-03-01T07:00:00Z' }, metadata: { schema_version: 1 } })
  t.same(openOrderEvent(STREAM, v1 as OrderEvent, null), { type: 'OrderCanceled', erased: false, data: { order_id: 'A-1', event_date: '2025-03-01T07:00:00Z', reason: 'moved away' } })
  const erasure: OrderEvent = { type: 'PersonalDataErased', data: { order_id: 'A-1', erased_at: '2026-01-01T00:00:00Z', scope: 'order', requested_by: 'dpo', reason: 'request' } }
  t.same(openOrderEvent(STREAM, erasure, null), { ...erasure, erased: false })
})

t.test('an opener of one order\'s events opens each as openOrderEvent does, its key looked up once', async (t) => {
  const command = completion()
  const open = orderEventOpener(STREAM, key)
  t.same(open(asEvent(command)), openOrderEvent(STREAM, asEvent(command), key))
  t.same(open(asEvent(command)), openOrderEvent(STREAM, asEvent(command), key), 'again, with the key already derived')
  t.throws(() => orderEventOpener('order-acme-A-2', key)(asEvent(command)), SealBrokenError, 'bound to its stream')
  t.match(orderEventOpener(STREAM, 'erased')(asEvent(command)), { erased: true, data: { address: null, recipient: null } })
  t.throws(() => orderEventOpener(STREAM, null)(asEvent(command)), MissingKeyError)
  const erasure: OrderEvent = { type: 'PersonalDataErased', data: { order_id: 'A-1', erased_at: '2026-01-01T00:00:00Z', scope: 'order', requested_by: 'dpo', reason: 'request' } }
  t.same(orderEventOpener(STREAM, null)(erasure), { ...erasure, erased: false })
})
