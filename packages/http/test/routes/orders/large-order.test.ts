import t from 'tap'
import { LIMITS } from '@waybill/domain'
import { testApp } from '../../helpers/app.js'

const COURIER = 'acme|orders:add,orders:update,orders:complete,orders:cancel,orders:read'
const at = (n: number): string => new Date(Date.UTC(2025, 2, 1) + n * 1000).toISOString().replace('.000Z', 'Z')

t.test('an order as large as an order may be: updates stop one short, it can still close, and it is read a page at a time', async (t) => {
  // The per-key limit lifted: a thousand events in a moment is what this test sends on purpose.
  const s = await testApp(t, { defaultPrincipal: COURIER, rateLimit: { max: 100_000, windowMs: 1000 } })
  const send = (event: string, n: number, payload: Record<string, unknown>) =>
    s.post('/v1/deliveries', { event, event_date: at(n), event_payload: { order_id: 'BIG', ...payload } })
  t.equal((await send('ORDER_ADD', 0, { customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: at(0) })).statusCode, 201)
  const update = (n: number) => send('ORDER_UPDATE', n, { status: 'in_progress', address: `${n} Main St`, delivery_date: at(n) })
  let accepted = 0
  for (let n = 1; n < LIMITS.orderEventsMax - 1; n += 1) if ((await update(n)).statusCode === 202) accepted += 1
  t.equal(accepted, LIMITS.orderEventsMax - 2, 'every update up to the last place but one')
  const refused = await update(LIMITS.orderEventsMax)
  t.equal(refused.statusCode, 409)
  t.match(refused.json(), { code: 'too_many_events', detail: /holds 999 events, the most before the one that closes it/ })
  t.equal((await send('ORDER_COMPLETE', LIMITS.orderEventsMax + 1, { address: 'a', delivery_date: at(1), recipient: 'R',
    pod: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==' })).statusCode, 202,
  'and it can still be completed')

  // The history, a page at a time: no answer about one order is large.
  const revisions: number[] = []
  let after: string | null = null
  let pages = 0
  do {
    const page = await s.get(`/v1/orders/BIG/events${after === null ? '' : `?after=${after}`}`)
    t.equal(page.statusCode, 200)
    t.ok(page.body.length < 256 * 1024, `page ${pages + 1}: ${page.body.length} bytes`)
    const body = page.json<{ events: Array<{ revision: number }>; next_cursor: string | null; chain: { ok: boolean } }>()
    revisions.push(...body.events.map((event) => event.revision))
    t.same(body.chain, { ok: true }, 'the chain verdict is about the whole stream, on every page')
    after = body.next_cursor
    pages += 1
  } while (after !== null && pages < 50)
  t.equal(pages, LIMITS.orderEventsMax / LIMITS.historyPageDefault)
  t.same(revisions, Array.from({ length: LIMITS.orderEventsMax }, (_, i) => i), 'every event once, in order')
  const largest = (await s.get(`/v1/orders/BIG/events?limit=${LIMITS.historyPageMax}`)).json<{ events: unknown[]; next_cursor: string | null }>()
  t.equal(largest.events.length, LIMITS.historyPageMax, 'the largest page')
  t.equal(largest.next_cursor, String(LIMITS.historyPageMax - 1))
  t.equal((await s.get(`/v1/orders/BIG/events?limit=${LIMITS.historyPageMax + 1}`)).statusCode, 400)

  // The CSV: the next page in a Link header; the chain verdict only under the last page.
  const page = LIMITS.historyPageMax
  const csv = await s.get(`/v1/orders/BIG/events?format=csv&limit=${page}`)
  t.equal(csv.headers.link, `</v1/orders/BIG/events?format=csv&limit=${page}&after=${page - 1}>; rel="next"`)
  t.notMatch(csv.body, /chain: /)
  const lastAfter = LIMITS.orderEventsMax - page - 1
  const rest = await s.get(`/v1/orders/BIG/events?format=csv&limit=${page}&after=${lastAfter}`)
  t.equal(rest.headers.link, undefined)
  t.equal(rest.body.trimEnd().split('\r\n').length, 1 + page + 1, `a header, the last ${page} events, the verdict`)

  // The proofs, a page at a time too.
  const proof = (await s.get('/v1/orders/BIG/proof?after=949')).json<{ entries: Array<{ revision: number }>; next_cursor: null }>()
  t.same(proof.entries.map((entry) => entry.revision), Array.from({ length: 50 }, (_, i) => 950 + i))
  t.equal(proof.next_cursor, null)
  t.equal((await s.get('/v1/orders/BIG/proof')).json<{ next_cursor: string }>().next_cursor, '99')
})
