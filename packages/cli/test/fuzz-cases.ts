import fc from 'fast-check'
import { PNG_DATA_URL } from './https-client.js'

/** One generated request. Every one of them must be refused with a 4xx problem body. */
export interface FuzzCase {
  readonly label: string
  readonly method: 'POST' | 'GET' | 'PUT' | 'DELETE' | 'PATCH'
  readonly path: string
  /** `null`: send no key. `undefined`: send the valid test key. */
  readonly key?: string | null
  readonly headers: Record<string, string>
  readonly body?: string | Buffer
}

const DATE = '2025-03-01T10:00:00Z'
const validAdd = (): Record<string, unknown> => ({
  order_id: 'fuzz-order', customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: DATE,
})
const validComplete = (): Record<string, unknown> => ({
  order_id: 'fuzz-order', address: 'a', delivery_date: DATE, recipient: 'r', pod: PNG_DATA_URL,
})
const json = { 'content-type': 'application/json' }
/** A value as a label shows it; JSON.stringify answers undefined for undefined, though typed string. */
const shown = (value: unknown): string => ((JSON.stringify(value) as string | undefined) ?? 'undefined').slice(0, 40)
const post = (label: string, body: string | Buffer, headers: Record<string, string> = json): FuzzCase =>
  ({ label, method: 'POST', path: '/v1/deliveries', headers, body })

/** Values that no field accepts: wrong types, empty, too long, control characters. */
const badValue = fc.oneof(
  fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constant(''), fc.constant('   '), fc.constant('x'.repeat(1025)),
  fc.string({ minLength: 1, maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.string({ minLength: 1, maxLength: 20 }).map((s) => `a\u0007${s}`),
)
const badDate = fc.oneof(
  fc.constant('2025-02-30T10:00:00Z'), fc.constant('2025-03-01T10:00:00+01:00'), fc.constant('2025-03-01 10:00:00'),
  fc.constant('2025-13-01T10:00:00Z'), fc.constant('2025-03-01T24:00:00Z'), fc.string({ maxLength: 30 }).filter((s) => !/^\d{4}-/.test(s)), badValue,
)
const payloadMutation = fc.tuple(
  fc.constantFrom('ORDER_ADD', 'ORDER_UPDATE', 'ORDER_COMPLETE', 'ORDER_CANCELED'),
  fc.constantFrom('order_id', 'status', 'address', 'delivery_date', 'customer', 'location', 'recipient', 'pod', 'reason'),
  fc.oneof(badValue, fc.constant(undefined)),
  badDate,
).map(([event, field, badOrMissing, date]) => {
  const base: Record<string, Record<string, unknown>> = {
    ORDER_ADD: validAdd(),
    ORDER_UPDATE: { order_id: 'fuzz-order', status: 'in_progress', address: 'a', delivery_date: DATE },
    ORDER_COMPLETE: validComplete(),
    ORDER_CANCELED: { order_id: 'fuzz-order', reason: 'r' },
  }
  const payload = base[event]!
  // Only a field the event requires: a bad value in a field the event ignores is not an error.
  const target = field in payload ? field : 'order_id'
  // Date texts are only wrong where a date is expected; anywhere else they are fine strings.
  const value = target === 'delivery_date' ? date : badOrMissing
  // Replaced in place (the field keeps its position), or left out.
  const { [target]: _missing, ...without } = payload
  const sent = value === undefined ? without : { ...payload, [target]: value }
  return post(`payload ${event}.${target}=${shown(value)}`, JSON.stringify({ event, event_date: DATE, event_payload: sent }))
})

const envelopeMutation = fc.tuple(fc.constantFrom('event', 'event_date', 'event_payload'), badDate).map(([field, value]) => {
  const envelope: Record<string, unknown> = { event: 'ORDER_ADD', event_date: DATE, event_payload: validAdd() }
  envelope[field] = value
  return post(`envelope ${field}=${shown(value)}`, JSON.stringify(envelope))
})

/** Required fields only in a poisoned prototype: they must not be seen as present. */
const poisoning = fc.constantFrom(
  post('__proto__ payload', `{"event":"ORDER_ADD","event_date":"${DATE}","event_payload":{"__proto__":${JSON.stringify(validAdd())}}}`),
  post('__proto__ envelope', `{"__proto__":{"event":"ORDER_ADD","event_date":"${DATE}","event_payload":${JSON.stringify(validAdd())}}}`),
  post('constructor.prototype payload', `{"event":"ORDER_ADD","event_date":"${DATE}","event_payload":{"constructor":{"prototype":${JSON.stringify(validAdd())}}}}`),
  post('constructor.prototype envelope', `{"constructor":{"prototype":{"event":"ORDER_CANCELED"}},"event_date":"${DATE}"}`),
  post('__proto__ form', `event=ORDER_ADD&event_date=${DATE}&event_payload[__proto__]=x&__proto__[order_id]=a`, { 'content-type': 'application/x-www-form-urlencoded' }),
  post('constructor form', `event=ORDER_ADD&event_date=${DATE}&constructor[prototype]=x&event_payload[constructor]=y`, { 'content-type': 'application/x-www-form-urlencoded' }),
  post('__proto__ event name', '{"event":"__proto__","event_date":"2025-03-01T10:00:00Z","event_payload":{}}'),
  post('toString event name', '{"event":"toString","event_date":"2025-03-01T10:00:00Z","event_payload":{}}'),
)

const garbageJson = fc.oneof(
  fc.string({ maxLength: 200 }).filter((s) => { try { JSON.parse(s); return false } catch { return true } }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constant('{"event":"ORDER_ADD",'), fc.constant('\uFEFF{}'), fc.constant('{}'), fc.constant('[]'), fc.constant('null'),
)
const deepNesting = fc.integer({ min: 1_000, max: 200_000 }).chain((depth) => fc.constantFrom(
  post(`nested array ${depth}`, '['.repeat(depth) + ']'.repeat(depth)),
  post(`nested payload ${depth}`, `{"event":"ORDER_ADD","event_date":"${DATE}","event_payload":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
  post(`unclosed ${depth}`, '{"a":['.repeat(depth)),
))
const contentTypes = fc.oneof(
  fc.constantFrom('text/plain', 'application/xml', 'application/octet-stream', 'image/png', 'application/jsonx', 'multipart/mixed', 'application/json-patch+json'),
  fc.stringMatching(/^[a-z]{1,10}\/[a-z0-9.+-]{1,15}$/).filter((t) => !/^(application\/json|application\/x-www-form-urlencoded|multipart\/form-data)$/.test(t)),
).map((type) => post(`content-type ${type}`, JSON.stringify({ event: 'ORDER_ADD', event_date: DATE, event_payload: validAdd() }), { 'content-type': type }))
const forms = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })), { maxLength: 8 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.constant('event=ORDER_ADD&event=ORDER_ADD'), fc.constant('event_payload=x&event_payload[order_id]=y&event=ORDER_ADD'),
  fc.constant('event=ORDER_ADD&event_payload[a][b]=c'),
).map((body) => post('form', body, { 'content-type': 'application/x-www-form-urlencoded' }))
const multipart = fc.oneof(
  fc.string({ maxLength: 300 }).map((s) => post('multipart garbage', `--b\r\n${s}`, { 'content-type': 'multipart/form-data; boundary=b' })),
  fc.constant(post('multipart no boundary', 'event=ORDER_ADD', { 'content-type': 'multipart/form-data' })),
  fc.constant(post('multipart file part', '--b\r\nContent-Disposition: form-data; name="event"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\nORDER_ADD\r\n--b--\r\n', { 'content-type': 'multipart/form-data; boundary=b' })),
)
const keys = fc.oneof(
  fc.constant(null), fc.constant(''), fc.stringMatching(/^[A-Za-z0-9_]{1,80}$/), fc.constant(`wb_test_${'A'.repeat(55)}`),
  fc.constant(`wb_live_${'0'.repeat(12)}${'a'.repeat(43)}`), fc.constant('x'.repeat(4000)),
).map((key): FuzzCase => ({ label: `key ${String(key).slice(0, 20)}`, method: 'POST', path: '/v1/deliveries', key, headers: json, body: JSON.stringify({ event: 'ORDER_ADD', event_date: DATE, event_payload: validAdd() }) }))
const headers = fc.dictionary(
  fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), fc.stringMatching(/^[ -~]{0,200}$/).map((s) => s.trim()), { maxKeys: 5 },
).map((extra) => post('odd headers', '{"event":"NOPE"}', { ...json, ...extra, 'x-request-id': 'bad id with spaces' }))
const images = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((bytes) => `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`).filter((u) => !u.includes('iVBORw0KGgo')),
  fc.constantFrom('data:image/gif;base64,R0lGODlhAQABAAAAACw=', 'data:image/png;base64,not base64!', 'data:image/png,raw', 'data:;base64,AAAA',
    `data:image/jpeg;base64,${Buffer.from('not a jpeg').toString('base64')}`, 'data:image/png;base64,iVBORw0KGgo=', 'https://example.invalid/x.png'),
).map((pod) => post(`fake image ${pod.slice(0, 30)}`, JSON.stringify({ event: 'ORDER_COMPLETE', event_date: DATE, event_payload: { ...validComplete(), pod } })))
const methodsAndPaths = fc.tuple(fc.constantFrom<FuzzCase['method']>('GET', 'PUT', 'DELETE', 'PATCH', 'POST'), fc.stringMatching(/^\/[a-z0-9/._-]{0,40}$/))
  .filter(([method, path]) => !(path === '/v1/deliveries' && method === 'POST') && !['/ping', '/healthz', '/readyz', '/metrics'].includes(path) && !path.startsWith('/docs') && !path.startsWith('/errors') && !path.startsWith('/v1/orders'))
  .map(([method, path]): FuzzCase => ({ label: `${method} ${path}`, method, path, headers: {} }))
const blank = fc.constantFrom('', ' ', '\n\t ', '\r\n').chain((body) => fc.constantFrom(
  post('blank json', body), post('blank form', body, { 'content-type': 'application/x-www-form-urlencoded' }), post('blank other', body, { 'content-type': 'text/plain' }),
))

/** The mix of everything above; the rare huge cases carry low weights to keep the run short. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { arbitrary: payloadMutation, weight: 30 },
  { arbitrary: envelopeMutation, weight: 6 },
  { arbitrary: poisoning, weight: 8 },
  { arbitrary: garbageJson.map((b) => post('garbage json', b)), weight: 15 },
  { arbitrary: deepNesting, weight: 2 },
  { arbitrary: contentTypes, weight: 6 },
  { arbitrary: forms, weight: 10 },
  { arbitrary: multipart, weight: 4 },
  { arbitrary: keys, weight: 8 },
  { arbitrary: headers, weight: 4 },
  { arbitrary: images, weight: 8 },
  { arbitrary: methodsAndPaths, weight: 4 },
  { arbitrary: blank, weight: 3 },
)

/** Few but heavy: a body past 16 MiB, an image past 5 MiB, a huge field. Sent once each. */
export function hugeCases(): FuzzCase[] {
  const bigImage = `data:image/png;base64,${Buffer.concat([Buffer.from(PNG_DATA_URL.split(',')[1]!, 'base64'), Buffer.alloc(6 * 1024 * 1024)]).toString('base64')}`
  return [
    post('body over 16 MiB', JSON.stringify({ event: 'ORDER_ADD', event_date: DATE, event_payload: { ...validAdd(), address: 'x'.repeat(17 * 1024 * 1024) } })),
    post('image over 5 MiB', JSON.stringify({ event: 'ORDER_COMPLETE', event_date: DATE, event_payload: { ...validComplete(), pod: bigImage } })),
    post('field of 10 MiB', JSON.stringify({ event: 'ORDER_ADD', event_date: DATE, event_payload: { ...validAdd(), customer: 'y'.repeat(10 * 1024 * 1024) } })),
    post('form over 16 MiB', `event=ORDER_ADD&event_payload[address]=${'z'.repeat(17 * 1024 * 1024)}`, { 'content-type': 'application/x-www-form-urlencoded' }),
  ]
}
