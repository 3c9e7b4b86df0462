import { createHash } from 'node:crypto'
import t from 'tap'
import { testApp, type TestApp } from '../../helpers/app.js'

// The smallest valid PNG (1x1), sent as the pod of one order.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
const PNG_SHA = createHash('sha256').update(PNG).digest('hex')

interface Fixture extends TestApp { ids: string[] }

const COURIER = 'orders:add,orders:update,orders:complete,orders:cancel'

/** Orders of three accounts, sent as couriers send them, then projected into the read model. */
async function fixture(t: { teardown(fn: () => unknown): void }): Promise<Fixture> {
  // The log at warn, as an operator may set it, to see what auditor reads still write there.
  const app = await testApp(t, { logLevel: 'warn' })
  const deliver = async (account: string, event: string, eventDate: string, payload: Record<string, unknown>): Promise<void> => {
    const answer = await app.post('/v1/deliveries', { event, event_date: eventDate, event_payload: payload }, `${account}|${COURIER}`)
    if (answer.statusCode >= 300) throw new Error(`${event} ${String(payload['order_id'])}: ${answer.body}`)
  }
  const ids: string[] = []
  const at = (n: number): string => `2025-03-0${n}T10:00:00Z`
  for (let i = 0; i < 23; i += 1) {
    const orderId = `ord-${String(i).padStart(3, '0')}`
    ids.push(orderId)
    await deliver('acme', 'ORDER_ADD', at(1), {
      order_id: orderId, customer: i % 2 === 0 ? 'even' : 'odd', location: `loc-${i % 3}`, status: 'pending', address: '1 Main St', delivery_date: at(5),
    })
  }
  await deliver('acme', 'ORDER_UPDATE', at(2), { order_id: 'ord-001', status: 'in_progress', address: '2 Main St', delivery_date: at(6) })
  await deliver('acme', 'ORDER_COMPLETE', at(3), {
    order_id: 'ord-001', address: '2 Main St', delivery_date: at(3), recipient: 'Ann', pod: `data:image/png;base64,${PNG.toString('base64')}`,
  })
  await deliver('acme', 'ORDER_CANCELED', at(4), { order_id: 'ord-002', reason: 'wrong address' })
  await deliver('globex', 'ORDER_ADD', at(1), { order_id: 'ord-000', customer: 'g', location: 'g', status: 'pending', address: 'elsewhere', delivery_date: at(5) })
  // Two orders dated less than a millisecond apart: updated_since must still tell them apart.
  for (const [orderId, eventDate] of [['frac-a', '2030-01-01T00:00:00.0005Z'], ['frac-b', '2030-01-01T00:00:00.001Z']] as const) {
    await deliver('initech', 'ORDER_ADD', eventDate, { order_id: orderId, customer: 'i', location: 'i', status: 'pending', address: 'x', delivery_date: at(5) })
  }
  await app.project()
  return { ...app, ids }
}

const reader = 'acme|orders:read'

t.test('read API', async (t) => {
  const app = await fixture(t)
  const { ids } = app
  const get = (url: string, principal: string | null = reader) => app.get(url, principal)

  t.test('one order: its current state', async (t) => {
    const response = await get('/v1/orders/ord-001')
    t.equal(response.statusCode, 200)
    const body = response.json<Record<string, unknown>>()
    t.match(body, {
      order_id: 'ord-001', status: 'completed', address: '2 Main St', recipient: 'Ann', reason: null,
      pod: { sha256: PNG_SHA, media_type: 'image/png', bytes: PNG.length }, signature: null,
      created_at: '2025-03-01T10:00:00Z', updated_at: '2025-03-03T10:00:00Z', revision: 2, last_event: 'OrderCompleted',
    })
    t.equal((await get('/v1/orders/ord-002')).json().status, 'canceled')
    t.equal((await get('/v1/orders/ord-002')).json().reason, 'wrong address')
  })

  t.test('unknown order, or another account\'s: 404 not_found', async (t) => {
    t.equal((await get('/v1/orders/nope')).json().code, 'not_found')
    const other = await get('/v1/orders/ord-005', 'globex|orders:read')
    t.equal(other.statusCode, 404)
    t.equal((await get('/v1/orders/ord-000', 'globex|orders:read')).json().address, 'elsewhere')
  })

  t.test('a key without orders:read: 403 api_key_forbidden; no principal: 401', async (t) => {
    const forbidden = await get('/v1/orders/ord-001', 'acme|orders:add,orders:update')
    t.equal(forbidden.statusCode, 403)
    t.equal(forbidden.json().code, 'api_key_forbidden')
    t.equal((await get('/v1/orders', 'acme|orders:add')).statusCode, 403)
    t.equal((await get('/v1/orders/ord-001', null)).json().code, 'api_key_missing')
  })

  t.test('list: pages through every order once, in order_id order, with an opaque cursor', async (t) => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const url: string = `/v1/orders?limit=5${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
      const response = await get(url)
      t.equal(response.statusCode, 200)
      const body = response.json<{ orders: Array<{ order_id: string }>; next_cursor: string | null }>()
      t.ok(body.orders.length <= 5)
      seen.push(...body.orders.map((o) => o.order_id))
      cursor = body.next_cursor
      pages += 1
    } while (cursor !== null && pages < 20)
    t.same(seen, ids)
    t.equal(pages, 5)
  })

  t.test('list filters', async (t) => {
    const ids = async (query: string): Promise<string[]> =>
      (await get(`/v1/orders?${query}`)).json<{ orders: Array<{ order_id: string }> }>().orders.map((o) => o.order_id)
    t.same(await ids('status=completed'), ['ord-001'])
    t.same(await ids('status=canceled'), ['ord-002'])
    t.equal((await ids('status=pending')).length, 21)
    t.same(await ids('customer=odd&location=loc-1&limit=500'), ['ord-001', 'ord-007', 'ord-013', 'ord-019'])
    t.same(await ids('updated_since=2025-03-02T00:00:00Z'), ['ord-001', 'ord-002'])
    t.same(await ids('updated_since=2025-03-03T10:00:00.000Z'), ['ord-001', 'ord-002'])
    t.equal((await ids('updated_since=2024-02-29T00:00:00Z')).length, 23, 'a leap day is a real date')
    t.equal((await get('/v1/orders')).json().orders.length, 23, 'default limit 50 covers all 23')
  })

  t.test('bad list parameters: 400 bad_request', async (t) => {
    const impossible = ['2025-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2025-04-31T00:00:00Z', '2025-13-01T00:00:00Z',
      '2025-01-01T24:00:00Z', '2025-01-01T00:60:00Z', '2025-01-01T00:00:60Z', '2025-01-01T00:00:00.1234567890Z']
    for (const query of ['limit=0', 'limit=501', 'limit=ten', 'status=done', 'updated_since=yesterday', 'cursor=garbage', 'colour=red',
      ...impossible.map((date) => `updated_since=${date}`)]) {
      const response = await get(`/v1/orders?${query}`)
      t.equal(response.statusCode, 400, query)
      t.equal(response.json().code, 'bad_request', query)
    }
  })

  t.test('updated_since compares at full precision (nanoseconds), not whole milliseconds', async (t) => {
    const ids = async (since: string): Promise<string[]> =>
      (await get(`/v1/orders?updated_since=${since}`, 'initech|orders:read')).json<{ orders: Array<{ order_id: string }> }>()
        .orders.map((o) => o.order_id)
    t.same(await ids('2030-01-01T00:00:00Z'), ['frac-a', 'frac-b'])
    t.same(await ids('2030-01-01T00:00:00.0005Z'), ['frac-a', 'frac-b'], 'dated exactly at it: listed')
    t.same(await ids('2030-01-01T00:00:00.000500001Z'), ['frac-b'])
    t.same(await ids('2030-01-01T00:00:00.0009Z'), ['frac-b'])
    t.same(await ids('2030-01-01T00:00:00.001000000Z'), ['frac-b'])
    t.same(await ids('2030-01-01T00:00:00.0011Z'), [])
  })

  t.test('a cursor works only with the filters it was issued for, and only in the form this API writes', async (t) => {
    const list = async (query: string) => get(`/v1/orders?${query}`)
    const cursor = (await list('status=pending&limit=5')).json().next_cursor as string
    const page = await list(`status=pending&limit=7&cursor=${cursor}`)
    t.equal(page.statusCode, 200, 'limit may change from page to page')
    t.equal(page.json().orders[0].order_id, 'ord-007')
    for (const other of ['', 'status=completed&', 'status=pending&customer=odd&', 'status=pending&updated_since=2025-01-01T00:00:00Z&']) {
      const response = await list(`${other}cursor=${cursor}`)
      t.equal(response.statusCode, 400, `${other}: other filters`)
      t.match(response.json().detail, /for these filters/)
    }
    const issued = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>
    const made = (value: unknown): string => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString('base64url'))
    // The wiring only; test/read-api/cursor.test.ts goes through the forms one by one.
    for (const forged of [made({ v: 1, after: '' }), made({ v: 1, after: 'ord-004' }), made({ ...issued, after: '' }),
      made({ ...issued, after: 'x'.repeat(129) }), made({ ...issued, extra: true })]) {
      const response = await list(`status=pending&cursor=${forged}`)
      t.equal(response.statusCode, 400, Buffer.from(decodeURIComponent(forged), 'base64url').toString('utf8'))
      t.equal(response.json().code, 'bad_request')
    }
    // Unsigned on purpose (any instance must read any instance's cursors): a well-formed cursor
    // for the same filters is only a position in order_id order, within the key's own orders.
    const moved = await list(`status=pending&limit=2&cursor=${made({ ...issued, after: 'ord-010' })}`)
    t.same(moved.json<{ orders: Array<{ order_id: string }> }>().orders.map((o) => o.order_id), ['ord-011', 'ord-012'])
    const since = (await list('updated_since=2025-03-01T00:00:00Z&limit=1')).json().next_cursor as string
    t.equal((await list(`updated_since=2025-03-01T00:00:00.000000Z&cursor=${since}`)).statusCode, 200, 'the same instant, written otherwise')
  })

  t.test('history comes from the event store, with hashes that chain', async (t) => {
    const response = await get('/v1/orders/ord-001/events')
    t.equal(response.statusCode, 200)
    const { events } = response.json<{ events: Array<Record<string, unknown>> }>()
    t.same(events.map((e) => e.type), ['OrderAdded', 'OrderUpdated', 'OrderCompleted'])
    t.same(events.map((e) => e.revision), [0, 1, 2])
    t.equal(events[0]?.prev_hash, null)
    t.equal(events[1]?.prev_hash, events[0]?.hash)
    t.equal(events[2]?.prev_hash, events[1]?.hash)
    t.notOk('position' in (events[0] ?? {}), 'no global position: it would show other accounts\' activity')
    t.equal(events[2]?.event_date, '2025-03-03T10:00:00Z')
    t.match(events[0]?.data, { order_id: 'ord-001', personal: { key: /^[0-9a-f-]+$/, iv: String, box: String } }, 'data as stored: the personal part sealed')
    t.notOk(JSON.stringify(events[0]?.data).includes('odd'), 'no personal value in the open')
    t.match(events[0]?.fields, { order_id: 'ord-001', customer: 'odd' }, 'fields as sent, opened with the order\'s key')
    t.same(events.map((e) => e.erased), [false, false, false])
    t.equal((await get('/v1/orders/nope/events')).statusCode, 404)
    t.equal((await get('/v1/orders/ord-005/events', 'globex|orders:read')).statusCode, 404)
  })

  t.test('pod bytes with their media type; 404 when the order has none', async (t) => {
    const pod = await get('/v1/orders/ord-001/pod')
    t.equal(pod.statusCode, 200)
    t.equal(pod.headers['content-type'], 'image/png')
    t.same(pod.rawPayload, PNG)
    const signature = await get('/v1/orders/ord-001/signature')
    t.equal(signature.statusCode, 404)
    t.equal(signature.json().code, 'not_found')
    t.equal((await get('/v1/orders/ord-003/pod')).statusCode, 404)
  })

  t.test('an order_id of 128 characters is looked up; one of 129 is a 400', async (t) => {
    t.equal((await get(`/v1/orders/${'x'.repeat(128)}`)).json().code, 'not_found')
    t.equal((await get(`/v1/orders/${'x'.repeat(129)}`)).json().code, 'bad_request')
  })
})

const auditor = '*|orders:audit'
interface Listed { orders: Array<Record<string, unknown> & { order_id: string; account?: string }>; next_cursor: string | null }

t.test('global positions, and auditor keys', async (t) => {
  const app = await fixture(t)
  const { ids, logs } = app
  const get = (url: string, principal: string | null = reader) => app.get(url, principal)
  const auditLines = () => logs.filter((line) => line['audit'] !== undefined).map((line) => line['audit'])

  t.test('an ordinary key sees neither the global position nor an account, in the order, the list or the history', async (t) => {
    const order = (await get('/v1/orders/ord-001')).json<Record<string, unknown>>()
    t.notOk('position' in order)
    t.notOk('account' in order)
    for (const listed of (await get('/v1/orders?limit=500')).json<Listed>().orders) {
      t.notOk('position' in listed || 'account' in listed, listed.order_id)
    }
    const history = (await get('/v1/orders/ord-001/events')).json<{ events: Array<Record<string, unknown>> }>()
    t.notOk('account' in history)
    t.notOk(history.events.some((event) => 'position' in event))
    t.same(auditLines(), [], 'and nothing an ordinary key reads is logged as an audit')
  })

  t.test('an auditor key lists every account\'s orders, each with its account and position, a page at a time', async (t) => {
    const seen: Array<[string | undefined, string]> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const response = await get(`/v1/orders?limit=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, auditor)
      t.equal(response.statusCode, 200)
      const body = response.json<Listed>()
      for (const order of body.orders) {
        seen.push([order.account, order.order_id])
        t.match(order.position, /^\d+$/, `${String(order.account)}/${order.order_id} has its position`)
      }
      cursor = body.next_cursor
      pages += 1
    } while (cursor !== null && pages < 10)
    t.same(seen, [...ids.map((id) => ['acme', id]), ['globex', 'ord-000'], ['initech', 'frac-a'], ['initech', 'frac-b']],
      'in (account, order_id) order, each once, ord-000 of two accounts both')
    t.equal(pages, 4)
    const narrowed = (await get('/v1/orders?account=globex', auditor)).json<Listed>()
    t.match(narrowed.orders, [{ account: 'globex', order_id: 'ord-000', address: 'elsewhere' }])
    t.equal(narrowed.orders.length, 1)
    t.same((await get('/v1/orders?status=completed', auditor)).json<Listed>().orders.map((o) => [o.account, o.order_id]), [['acme', 'ord-001']])
    const acmeFirst = (await get('/v1/orders?account=acme&limit=20', auditor)).json<Listed>()
    const acmeRest = (await get(`/v1/orders?account=acme&limit=20&cursor=${encodeURIComponent(acmeFirst.next_cursor ?? '')}`, auditor)).json<Listed>()
    t.same([...acmeFirst.orders, ...acmeRest.orders].map((o) => o.order_id), ids, 'narrowed to one account, paged')
  })

  t.test('the auditor\'s list parameters and cursors', async (t) => {
    for (const query of ['account=Bad-Name', 'account=*', 'account=', 'account=acme&account=globex', 'colour=red', 'limit=0']) {
      const response = await get(`/v1/orders?${query}`, auditor)
      t.equal(response.statusCode, 400, query)
      t.equal(response.json().code, 'bad_request', query)
    }
    const tenantCursor = (await get('/v1/orders?limit=2')).json<Listed>().next_cursor ?? ''
    const auditCursor = (await get('/v1/orders?limit=2', auditor)).json<Listed>().next_cursor ?? ''
    t.match((await get(`/v1/orders?cursor=${tenantCursor}`, auditor)).json(), { code: 'bad_request', detail: /not a cursor this API returned$/ }, 'a tenant\'s cursor')
    t.match((await get(`/v1/orders?cursor=${auditCursor}`)).json(), { code: 'bad_request', detail: /not a cursor this API returned$/ }, 'and the other way round')
    t.match((await get(`/v1/orders?account=acme&cursor=${auditCursor}`, auditor)).json(), { detail: /for these filters/ }, 'narrowed since')
    t.match((await get('/v1/orders?account=acme', reader)).json(), { code: 'bad_request', detail: 'account: not a parameter of this list' }, 'an ordinary key\'s list takes no account, as before')
  })

  t.test('an auditor key reads one order, its history and its images in any account, which it names', async (t) => {
    t.match((await get('/v1/orders/ord-000?account=globex', auditor)).json(), { account: 'globex', order_id: 'ord-000', address: 'elsewhere', position: /^\d+$/ })
    t.match((await get('/v1/orders/ord-000?account=acme', auditor)).json(), { account: 'acme', order_id: 'ord-000', address: '1 Main St' })
    t.match((await get('/v1/orders/ord-001?account=acme', auditor)).json(), { account: 'acme', status: 'completed', recipient: 'Ann' })
    const history = (await get('/v1/orders/ord-001/events?account=acme', auditor)).json<{ account: string; events: Array<Record<string, unknown>> }>()
    t.equal(history.account, 'acme')
    t.same(history.events.map((e) => e.type), ['OrderAdded', 'OrderUpdated', 'OrderCompleted'])
    t.ok(history.events.every((event) => typeof event.position === 'string'), 'with the global positions')
    t.same((await get('/v1/orders/ord-000/events?account=globex', auditor)).json<{ events: unknown[] }>().events.length, 1)
    const pod = await get('/v1/orders/ord-001/pod?account=acme', auditor)
    t.equal(pod.statusCode, 200)
    t.same(pod.rawPayload, PNG)
    t.equal((await get('/v1/orders/ord-001/signature?account=acme', auditor)).statusCode, 404)
    t.equal((await get('/v1/orders/ord-001?account=globex', auditor)).statusCode, 404, 'not in that account')
    t.equal((await get('/v1/orders/nope/events?account=acme', auditor)).statusCode, 404)
    for (const path of ['/v1/orders/ord-001', '/v1/orders/ord-001/events', '/v1/orders/ord-001/pod', '/v1/orders/ord-001?account=Acme',
      '/v1/orders/ord-001/events?account=*']) {
      t.match((await get(path, auditor)).json(), { code: 'bad_request', detail: /^account: an auditor key names the account to read/ }, path)
    }
    // Named twice: the parameter's schema takes one string.
    t.match((await get('/v1/orders/ord-001?account=acme&account=globex', auditor)).json(), { code: 'bad_request', detail: /^account: / })
  })

  t.test('an ordinary key\'s account parameter changes nothing: it reads only its own account, exactly as before', async (t) => {
    t.match((await get('/v1/orders/ord-000?account=globex')).json(), { order_id: 'ord-000', address: '1 Main St' }, 'acme\'s ord-000, not globex\'s')
    t.equal((await get('/v1/orders/ord-005?account=acme', 'globex|orders:read')).statusCode, 404)
    t.equal((await get('/v1/orders/ord-001/events?account=acme', 'globex|orders:read')).statusCode, 404)
    t.equal((await get('/v1/orders/ord-001/pod?account=acme', 'globex|orders:read')).statusCode, 404)
    t.same((await get('/v1/orders', 'globex|orders:read')).json<Listed>().orders.map((o) => o.order_id), ['ord-000'])
  })

  // A key of one account with orders:audit, or a * key without it, cannot be issued (the key rules
  // refuse them; @waybill/keys tests requireReadAccess on such principals): the keys that can be
  // issued without orders:read read nothing here.
  t.test('a key without orders:read reads nothing, whatever it may write', async (t) => {
    for (const principal of ['acme|orders:add', 'acme|orders:update,orders:complete', 'globex|orders:cancel']) {
      for (const path of ['/v1/orders', '/v1/orders/ord-001?account=acme', '/v1/orders/ord-001/events?account=acme', '/v1/orders/ord-001/pod?account=acme']) {
        const response = await get(path, principal)
        t.equal(response.statusCode, 403, `${principal} ${path}`)
        t.equal(response.json().code, 'api_key_forbidden')
      }
    }
  })

  t.test('every auditor read is one log line with its key id, route, account and order_id, at warn level too', async (t) => {
    logs.length = 0
    await get('/v1/orders/ord-000?account=globex', auditor)
    await get('/v1/orders/ord-001/events?account=acme', auditor)
    await get('/v1/orders/ord-001/pod?account=acme', auditor)
    await get('/v1/orders?account=initech', auditor)
    await get('/v1/orders/ord-001?account=globex', auditor)
    await get('/v1/orders/ord-001')
    const { keyId } = await app.key(auditor)
    t.same(auditLines(), [
      { key_id: keyId, route: '/v1/orders/:order_id', account: 'globex', order_id: 'ord-000' },
      { key_id: keyId, route: '/v1/orders/:order_id/events', account: 'acme', order_id: 'ord-001' },
      { key_id: keyId, route: '/v1/orders/:order_id/pod', account: 'acme', order_id: 'ord-001' },
      { key_id: keyId, route: '/v1/orders', account: 'initech', order_id: null,
        orders: [{ account: 'initech', order_id: 'frac-a' }, { account: 'initech', order_id: 'frac-b' }] },
    ], 'a read that found nothing returned nothing to log; an ordinary key\'s reads are not audit lines')
    t.ok(logs.filter((line) => line['audit'] !== undefined).every((line) => line['level'] === 30 && line['msg'] === 'auditor read'))
  })
})
