import type { WireEvent } from './commands.js'
import { WaybillError } from './errors.js'
import { LIMITS } from './limits.js'
import type {
  OrderAddPayload,
  OrderCancelPayload,
  OrderCompletePayload,
  OrderUpdatePayload,
  ValidDelivery,
} from './valid-delivery.js'
import {
  FieldError,
  readImage,
  readObject,
  readOptionalImage,
  readStatus,
  readText,
  readTimestamp,
  type Fields,
} from './wire-fields.js'

const text = (p: Fields, key: string) => readText(p, key, LIMITS.stringMaxLength)
const orderId = (p: Fields) => readText(p, 'order_id', LIMITS.orderIdMaxLength)

// Each reader builds a fresh object holding only the event's own fields, checked in the order of
// SPEC.md §2.3, so the first field in that order that fails is the one the detail names.
function readAdd(p: Fields): OrderAddPayload {
  return {
    order_id: orderId(p),
    customer: text(p, 'customer'),
    location: text(p, 'location'),
    status: readStatus(p, 'status'),
    address: text(p, 'address'),
    delivery_date: readTimestamp(p, 'delivery_date'),
  }
}

function readUpdate(p: Fields): OrderUpdatePayload {
  return {
    order_id: orderId(p),
    status: readStatus(p, 'status'),
    address: text(p, 'address'),
    delivery_date: readTimestamp(p, 'delivery_date'),
  }
}

function readComplete(p: Fields): OrderCompletePayload {
  const order_id = orderId(p)
  const address = text(p, 'address')
  const delivery_date = readTimestamp(p, 'delivery_date')
  const pod = readImage(p, 'pod')
  const recipient = text(p, 'recipient')
  const signature = readOptionalImage(p, 'signature')
  return { order_id, address, delivery_date, pod, recipient, ...(signature === undefined ? {} : { signature }) }
}

function readCancel(p: Fields): OrderCancelPayload {
  return { order_id: orderId(p), reason: text(p, 'reason') }
}

function readDelivery(event: WireEvent, body: Fields): ValidDelivery {
  const event_date = readTimestamp(body, 'event_date')
  const payload = readObject(body, 'event_payload')
  switch (event) {
    case 'ORDER_ADD':
      return { event, event_date, payload: readAdd(payload) }
    case 'ORDER_UPDATE':
      return { event, event_date, payload: readUpdate(payload) }
    case 'ORDER_COMPLETE':
      return { event, event_date, payload: readComplete(payload) }
    case 'ORDER_CANCELED':
      return { event, event_date, payload: readCancel(payload) }
  }
}

/**
 * Payload validation (DESIGN.md §3), run after `readEventName` and the key's scope check: the
 * envelope's `event_date` and `event_payload`, then the event's fields. Any failure is a
 * `bad_request` whose detail names the field, e.g. `event_payload.order_id: is required`.
 * Fields that do not belong to the event are ignored; values are kept exactly as sent.
 */
export function validateDelivery(
  event: WireEvent,
  body: Record<string, unknown>,
): { ok: true; value: ValidDelivery } | { ok: false; error: WaybillError } {
  try {
    return { ok: true, value: readDelivery(event, { object: body, prefix: '' }) }
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, error: new WaybillError('bad_request', error.message) }
    throw error
  }
}
