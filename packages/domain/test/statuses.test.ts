import t from 'tap'
import {
  isLocked, isOrderEventType, isWireStatus, LOCKED_STATUSES, ORDER_EVENT_TYPES, ORDER_STATUSES, WIRE_STATUSES,
} from '../src/index.js'

t.test('every order status is a wire status or a locked one, and only the locked ones lock', async (t) => {
  t.same(ORDER_STATUSES, [...WIRE_STATUSES, ...LOCKED_STATUSES])
  for (const status of LOCKED_STATUSES) t.ok(isLocked(status), `${status} locks`)
  for (const status of WIRE_STATUSES) t.notOk(isLocked(status), `${status} does not lock`)
  for (const status of WIRE_STATUSES) t.ok(isWireStatus(status), `${status} may be sent`)
  for (const status of LOCKED_STATUSES) t.notOk(isWireStatus(status), `${status} may not be sent`)
  for (const other of ['delivered', 'PENDING', '', null, 1]) t.notOk(isWireStatus(other), String(other))
})

t.test('the stored event types', async (t) => {
  t.same(ORDER_EVENT_TYPES, ['OrderAdded', 'OrderUpdated', 'OrderCompleted', 'OrderCanceled', 'PersonalDataErased'])
  t.ok(ORDER_EVENT_TYPES.every(isOrderEventType))
  for (const other of ['ORDER_ADD', 'KeyIssued', 'orderadded', '']) t.notOk(isOrderEventType(other), other)
})
