import t from 'tap'
import { WIRE_EVENTS } from '../src/commands.js'
import { readEventName } from '../src/read-event-name.js'

t.test('each of the four events is read', async (t) => {
  for (const event of WIRE_EVENTS) {
    const body = { event, extra: 1 }
    const result = readEventName(body)
    t.same(result, { ok: true, event, body })
    t.equal(result.ok && result.body, body, 'the same body, not a copy')
  }
})

t.test('a body that is not an object is unknown_event', async (t) => {
  for (const body of [null, undefined, 'ORDER_ADD', 42, true, [], [{ event: 'ORDER_ADD' }]]) {
    const result = readEventName(body)
    t.equal(result.ok, false)
    if (!result.ok) t.equal(result.error.code, 'unknown_event')
  }
})

t.test('a missing, mistyped or unknown event is unknown_event, {} included', async (t) => {
  const bodies = [{}, { event: null }, { event: 42 }, { event: ['ORDER_ADD'] }, { event: 'order_add' }, { event: 'ORDER_ADD ' }, { event: '' }]
  for (const body of bodies) {
    const result = readEventName(body)
    t.match(result, { ok: false, error: { code: 'unknown_event', status: 400 } }, JSON.stringify(body))
  }
  t.match(readEventName({}), { error: { detail: 'event: is required' } })
  t.match(readEventName({ event: 'X' }), { error: { detail: /event: must be one of ORDER_ADD/ } })
})

t.test('an event inherited from the prototype is not an event', async (t) => {
  t.match(readEventName(Object.create({ event: 'ORDER_ADD' })), { ok: false, error: { code: 'unknown_event' } })
  t.match(readEventName(JSON.parse('{"__proto__": {"event": "ORDER_ADD"}}')), { ok: false })
})
