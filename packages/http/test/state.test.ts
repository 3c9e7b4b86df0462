import t from 'tap'
import { testApp } from './helpers/app.js'
import { addBody, cancelBody, completeBody, orderId, updateBody } from './fixtures.js'

t.test('the state table (docs/contract.md#states-and-transitions)', async (t) => {
  const s = await testApp(t)
  const post = async (body: unknown) => (await s.json('/v1/deliveries', body))
  const a = orderId()
  for (const [body, status, code] of [
    [updateBody(a), 404, 'not_found'], [completeBody(a), 404, 'not_found'], [cancelBody(a), 404, 'not_found'],
    [addBody(a), 201, undefined], [addBody(a, { address: 'elsewhere' }), 409, 'conflict'],
    [updateBody(a), 202, undefined], [updateBody(a, { status: 'pending', address: '3 Main St' }), 202, undefined],
    [completeBody(a), 202, undefined],
    [updateBody(a, { address: '9 Main St' }), 409, 'locked'], [cancelBody(a), 409, 'locked'],
    [completeBody(a, { recipient: 'Bob' }), 409, 'locked'], [addBody(a, { customer: 'x' }), 409, 'conflict'],
  ] as const) {
    const reply = await post(body)
    t.equal(reply.status, status, `${(body as { event: string }).event} → ${status}: ${reply.text}`)
    if (code === undefined) t.equal(reply.text, '', 'empty body on success')
    else {
      t.equal(reply.json.code, code)
      t.match(reply.json.detail, a, 'the detail names the order')
    }
  }
  const b = orderId()
  t.equal((await post(addBody(b, { status: 'in_progress' }))).status, 201)
  t.equal((await post(cancelBody(b))).status, 202)
  t.equal((await post(completeBody(b))).json.code, 'locked')
})

t.test('exact retries answer the original status and append nothing', async (t) => {
  const s = await testApp(t)
  const id = orderId()
  for (const body of [addBody(id), updateBody(id), completeBody(id)]) {
    const first = await s.json('/v1/deliveries', body)
    const again = await s.json('/v1/deliveries', body)
    t.equal(again.status, first.status, `${body.event} retried`)
    t.equal(again.text, '')
  }
  const cancelId = orderId()
  t.equal((await s.json('/v1/deliveries', addBody(cancelId))).status, 201)
  t.equal((await s.json('/v1/deliveries', cancelBody(cancelId))).status, 202)
  t.equal((await s.json('/v1/deliveries', cancelBody(cancelId))).status, 202, 'cancel retried')
  t.equal((await s.json('/v1/deliveries', cancelBody(cancelId, { reason: 'other' }))).json.code, 'locked', 'a different cancel is locked')
})

t.test('20 racing creates of one order: exactly one 201, the rest conflict', async (t) => {
  const s = await testApp(t)
  const id = orderId('race')
  // Each create differs (customer), so none is an exact retry of another.
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => s.json('/v1/deliveries', addBody(id, { customer: `c-${i}` }))))
  const statuses = replies.map((r) => r.status)
  t.equal(statuses.filter((x) => x === 201).length, 1, `one 201 in ${statuses.join(',')}`)
  t.equal(replies.filter((r) => r.status === 409 && r.json.code === 'conflict').length, 19)
})

t.test('20 identical racing creates: all answer 201 (exact retries), one event stored', async (t) => {
  const s = await testApp(t)
  const id = orderId('same')
  const replies = await Promise.all(Array.from({ length: 20 }, () => s.json('/v1/deliveries', addBody(id))))
  t.same([...new Set(replies.map((r) => r.status))], [201])
  t.equal((await s.json('/v1/deliveries', addBody(id, { customer: 'other' }))).json.code, 'conflict')
})

t.test('racing complete and cancel: exactly one 202, the other locked', async (t) => {
  const s = await testApp(t)
  for (let round = 0; round < 5; round += 1) {
    const id = orderId('lock')
    t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
    const [complete, cancel] = await Promise.all([s.json('/v1/deliveries', completeBody(id)), s.json('/v1/deliveries', cancelBody(id))])
    const statuses = [complete.status, cancel.status].sort()
    t.same(statuses, [202, 409], `round ${round}`)
    t.equal([complete, cancel].find((r) => r.status === 409)?.json.code, 'locked')
  }
})

t.test('accounts are separate: the same order_id in two accounts, no crossing', async (t) => {
  const s = await testApp(t)
  const all = ['orders:add', 'orders:update', 'orders:complete', 'orders:cancel', 'orders:read'] as const
  const keyA = await s.newKey('acme', all)
  const keyB = await s.newKey('globex', all)
  const id = orderId('shared')
  t.equal((await s.json('/v1/deliveries', addBody(id), keyA)).status, 201)
  t.equal((await s.json('/v1/deliveries', updateBody(id), keyB)).json.code, 'not_found', 'B cannot change A\'s order')
  t.equal((await s.json('/v1/deliveries', cancelBody(id), keyB)).json.code, 'not_found')
  t.equal((await s.json('/v1/deliveries', addBody(id), keyB)).status, 201, 'B creates its own order with the same id')
  t.equal((await s.json('/v1/deliveries', cancelBody(id), keyB)).status, 202)
  t.equal((await s.json('/v1/deliveries', updateBody(id), keyA)).status, 202, 'A\'s order is untouched by B\'s cancel')
  t.equal((await s.json('/v1/deliveries', updateBody(id), s.testKey)).json.code, 'not_found', 'the sandbox sees neither')
})

t.test('each event needs its own scope', async (t) => {
  const s = await testApp(t)
  const id = orderId()
  const adder = await s.newKey('acme', ['orders:add'])
  t.equal((await s.json('/v1/deliveries', addBody(id), adder)).status, 201)
  for (const body of [updateBody(id), completeBody(id), cancelBody(id)]) {
    const reply = await s.json('/v1/deliveries', body, adder)
    t.equal(reply.json.code, 'api_key_forbidden', body.event)
  }
  const updater = await s.newKey('acme', ['orders:update'])
  t.equal((await s.json('/v1/deliveries', addBody(orderId()), updater)).json.code, 'api_key_forbidden')
  t.equal((await s.json('/v1/deliveries', updateBody(id), updater)).status, 202)
  t.equal((await s.send('GET', '/ping', { key: updater })).status, 200, 'ping needs any valid key')
})
