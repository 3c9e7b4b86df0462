import { createHash } from 'node:crypto'
import fc from 'fast-check'
import t from 'tap'
import { WIRE_EVENTS } from '../src/commands.js'
import { WAYBILL_EVENT_NAMESPACE, eventIdFor } from '../src/event-id.js'
import { uuidV5 } from '../src/uuid-v5.js'
import { ACCOUNT, addOrder, completeOrder } from './fixtures.js'

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'
const V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('uuidV5 gives the published test vector of RFC 9562 (Appendix A.4)', async (t) => {
  t.equal(uuidV5('www.example.com', DNS_NAMESPACE), '2ed6657d-e927-568b-95e1-2665a8aea6a2')
  t.equal(uuidV5('www.example.com', DNS_NAMESPACE.toUpperCase()), '2ed6657d-e927-568b-95e1-2665a8aea6a2')
})

t.test('uuidV5 hashes the name as UTF-8 and sets version 5 and the RFC variant', async (t) => {
  t.match(uuidV5('ü😀', WAYBILL_EVENT_NAMESPACE), V5)
  t.not(uuidV5('a', WAYBILL_EVENT_NAMESPACE), uuidV5('a', DNS_NAMESPACE))
})

/** RFC 9562 §5.5 as written, with a hash object: what uuidV5 must agree with. */
function referenceUuidV5(name: string, namespace: string): string {
  const bytes = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x50
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

t.test('uuidV5 agrees with the RFC written out, for any name, namespaces taking turns', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.constantFrom(DNS_NAMESPACE, WAYBILL_EVENT_NAMESPACE, DNS_NAMESPACE.toUpperCase()),
    (name, namespace) => uuidV5(name, namespace) === referenceUuidV5(name, namespace.toLowerCase())), { numRuns: 500 })
  t.equal(uuidV5('www.example.com', DNS_NAMESPACE), '2ed6657d-e927-568b-95e1-2665a8aea6a2', 'and the vector after a change of namespace')
})

t.test('uuidV5 refuses a namespace that is not a UUID', async (t) => {
  t.throws(() => uuidV5('x', 'not-a-uuid'), TypeError)
  t.throws(() => uuidV5('x', `${DNS_NAMESPACE}0`), TypeError)
  uuidV5('x', DNS_NAMESPACE)
  t.throws(() => uuidV5('x', 'not-a-uuid'), TypeError, 'also right after a good one')
})

t.test('eventIdFor is deterministic whatever the key order of the data', async (t) => {
  const { data } = addOrder()
  const reordered = Object.fromEntries(Object.entries(data).reverse())
  t.equal(eventIdFor(ACCOUNT, 'ORDER_ADD', data), eventIdFor(ACCOUNT, 'ORDER_ADD', reordered))
  t.match(eventIdFor(ACCOUNT, 'ORDER_ADD', data), V5)
})

t.test('eventIdFor changes with the account, the event name and every data field', async (t) => {
  const { data } = completeOrder()
  const id = eventIdFor(ACCOUNT, 'ORDER_COMPLETE', data)
  t.not(eventIdFor('other', 'ORDER_COMPLETE', data), id, 'account')
  for (const event of WIRE_EVENTS.filter((e) => e !== 'ORDER_COMPLETE')) t.not(eventIdFor(ACCOUNT, event, data), id, event)
  for (const key of Object.keys(data) as (keyof typeof data)[]) {
    const value = data[key]
    const changed = { ...data, [key]: typeof value === 'string' ? `${value}x` : key === 'personal' ? { ...data.personal, box: 'x' } : { ...data.pod, bytes: 1 } }
    t.not(eventIdFor(ACCOUNT, 'ORDER_COMPLETE', changed), id, key)
  }
  t.not(eventIdFor(ACCOUNT, 'ORDER_COMPLETE', { ...data, signature: undefined }), id, 'signature left out')
})

t.test('eventIdFor is injective over changed string fields (property)', async () => {
  const base = addOrder().data
  const keys = Object.keys(base) as (keyof typeof base)[]
  fc.assert(
    fc.property(fc.constantFrom(...keys), fc.string({ maxLength: 40 }), (key, value) => {
      fc.pre(value !== base[key])
      return eventIdFor(ACCOUNT, 'ORDER_ADD', { ...base, [key]: value }) !== eventIdFor(ACCOUNT, 'ORDER_ADD', base)
    }),
  )
})
