import { randomBytes } from 'node:crypto'
import t from 'tap'
import { testApp } from './helpers/app.js'
import { addBody, cancelBody, completeBody, dataUrl, PNG, updateBody } from './fixtures.js'

// Each personal value is unique to this run, so finding it anywhere is finding a leak.
const mark = (name: string): string => `${name}${randomBytes(8).toString('hex')}`

t.test('personal values never reach the log above debug, nor a problem\'s detail, whatever the route and answer', async (t) => {
  const app = await testApp(t, { logLevel: 'info' })
  const courier = 'sandbox|orders:add,orders:update,orders:complete,orders:cancel'
  const reader = 'sandbox|orders:read'
  const values: string[] = []
  const personal = (name: string): string => {
    const value = mark(name)
    values.push(value)
    return value
  }
  const answers: string[] = []
  const post = async (body: unknown): Promise<number> => {
    const answer = await app.post('/v1/deliveries', body, courier)
    answers.push(answer.body)
    return answer.statusCode
  }
  const get = async (url: string, principal = reader): Promise<number> => {
    const answer = await app.get(url, principal)
    answers.push(answer.body)
    return answer.statusCode
  }
  const image = Buffer.concat([PNG, Buffer.from(personal('imagebytes'))])

  // Accepted events with every personal field.
  const customer = personal('customer')
  const location = personal('location')
  t.equal(await post(addBody('P-1', { customer, location, address: personal('address') })), 201)
  t.equal(await post(updateBody('P-1', { address: personal('newaddress') })), 202)
  t.equal(await post(completeBody('P-1', { address: personal('lastaddress'), recipient: personal('recipient'), pod: dataUrl('image/png', image) })), 202)
  t.equal(await post(addBody('P-2', { customer: personal('customer') })), 201)
  t.equal(await post(cancelBody('P-2', { reason: personal('reason') })), 202)
  // Refused ones: invalid values, too long, in the wrong event, for a locked order, a conflict.
  t.equal(await post(addBody('P-3', { customer: `${personal('customer')}\u0000`, location: personal('x').repeat(200) })), 400)
  t.equal(await post(addBody('P-1', { customer: personal('customer') })), 409)
  t.equal(await post(updateBody('P-1', { address: personal('address') })), 409)
  t.equal(await post({ event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z', event_payload: { order_id: 'P-4', customer: personal('customer'), oops: personal('extra') } }), 400)
  t.equal(await post(completeBody('P-5', { recipient: personal('recipient'), pod: `data:image/png;base64,${Buffer.from(personal('notanimage')).toString('base64')}` })), 400)
  await app.project()
  // Reads, including filters by personal values and every form of the history.
  t.equal(await get(`/v1/orders?customer=${encodeURIComponent(customer)}`), 200)
  t.equal(await get(`/v1/orders?location=${encodeURIComponent(location)}&limit=5`), 200)
  t.equal(await get(`/v1/orders?customer=${encodeURIComponent(personal('customer'))}&status=nope`), 400)
  for (const path of ['', '/events', '/events?format=csv', '/proof', '/pod']) t.equal(await get(`/v1/orders/P-1${path}`), 200, path)
  t.equal(await get('/v1/orders/P-1', '*|orders:audit'), 400, 'an auditor names the account')
  t.equal(await get('/v1/orders/P-1?account=sandbox', '*|orders:audit'), 200)

  const log = JSON.stringify(app.logs)
  t.ok(app.logs.length > 20, `${app.logs.length} log lines`)
  t.same(values.filter((value) => log.includes(value)), [], 'no personal value in any log line at info and above')
  const problems = answers.filter((body) => body.startsWith('{"type"'))
  t.ok(problems.length >= 7, `${problems.length} problems answered`)
  t.same(values.filter((value) => problems.some((body) => body.includes(value))), [], 'nor in any problem')
  t.ok(log.includes('/v1/orders?customer='), 'the request is logged, its personal filter values left out')
})
