import { canonicalJson } from '../src/canonical-json.js'
import type { AddOrder, CancelOrder, CompleteOrder, EraseOrder, OrderCommand, UpdateOrder } from '../src/commands.js'
import { eraseEventIdFor } from '../src/event-id.js'
import { isSealed, type OrderEvent, type PersonalDataErasedData } from '../src/events.js'
import type { DecodedImage } from '../src/image-data-url.js'
import { openedEvent, type OpenedOrderEvent } from '../src/personal.js'
import { toCommand, type DeliverySealer } from '../src/to-command.js'
import type { OrderAddPayload, OrderCancelPayload, OrderCompletePayload, OrderUpdatePayload } from '../src/valid-delivery.js'

export const ACCOUNT = 'acme_1'
const ORDER_ID = 'A-1001'

export const POD: DecodedImage = { sha256: 'a'.repeat(64), media_type: 'image/jpeg', bytes: Buffer.alloc(1234) }
export const SIGNATURE: DecodedImage = { sha256: 'b'.repeat(64), media_type: 'image/png', bytes: Buffer.alloc(99) }

/**
 * A stand-in for the sealing of `@waybill/personal-data`, for the rules alone: it "seals" by
 * writing the fields out as base64url (no secrecy; the domain never opens a sealed part, and the
 * real sealing is tested where it lives). Deterministic, like the real one.
 */
export const testSealer: DeliverySealer = {
  personal: (type, fields) => ({ key: 'test-key', iv: type, box: Buffer.from(canonicalJson(fields)).toString('base64url') }),
  image: (image) => ({ blob: image.sha256.toUpperCase(), media_type: image.media_type, bytes: image.bytes.length }),
}

/** Opens what `testSealer` sealed; `erased` opens nothing, as after the key was destroyed. */
export function openTest(event: OrderEvent, erased = false): OpenedOrderEvent {
  if (event.type === 'PersonalDataErased' || erased) return openedEvent(event, null)
  const { personal } = event.data
  return openedEvent(event, isSealed(personal) ? JSON.parse(Buffer.from(personal.box, 'base64url').toString()) as Record<string, unknown> : personal.plain)
}

const ADD: OrderAddPayload & { event_date: string } = {
  order_id: ORDER_ID, customer: 'C-7', location: 'L-3', status: 'pending', address: '1 Quay Street',
  delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z',
}

const split = <P extends { event_date: string }>(fields: P): { event_date: string; payload: Omit<P, 'event_date'> } => {
  const { event_date, ...payload } = fields
  return { event_date, payload }
}

export function addOrder(overrides: Partial<typeof ADD> = {}): AddOrder {
  return toCommand(ACCOUNT, { event: 'ORDER_ADD', ...split({ ...ADD, ...overrides }) }, testSealer) as AddOrder
}

export function updateOrder(overrides: Partial<OrderUpdatePayload & { event_date: string }> = {}): UpdateOrder {
  const fields = {
    order_id: ORDER_ID, status: 'in_progress', address: '2 Quay Street', delivery_date: '2025-03-02T11:00:00Z',
    event_date: '2025-02-28T09:00:00Z', ...overrides,
  } as const
  return toCommand(ACCOUNT, { event: 'ORDER_UPDATE', ...split(fields) }, testSealer) as UpdateOrder
}

export function completeOrder(overrides: Partial<OrderCompletePayload & { event_date: string }> = {}): CompleteOrder {
  const fields: OrderCompletePayload & { event_date: string } = {
    order_id: ORDER_ID, address: '2 Quay Street', delivery_date: '2025-03-02T11:30:00Z', recipient: 'R. Doe', pod: POD,
    signature: SIGNATURE, event_date: '2025-03-02T11:31:00Z', ...overrides,
  }
  if (fields.signature === undefined) delete (fields as { signature?: unknown }).signature
  return toCommand(ACCOUNT, { event: 'ORDER_COMPLETE', ...split(fields) }, testSealer) as CompleteOrder
}

export function cancelOrder(overrides: Partial<OrderCancelPayload & { event_date: string }> = {}): CancelOrder {
  const fields = { order_id: ORDER_ID, reason: 'customer moved', event_date: '2025-03-01T07:00:00Z', ...overrides }
  return toCommand(ACCOUNT, { event: 'ORDER_CANCELED', ...split(fields) }, testSealer) as CancelOrder
}

export function eraseOrder(overrides: Partial<PersonalDataErasedData> = {}): EraseOrder {
  const data: PersonalDataErasedData = {
    order_id: ORDER_ID, erased_at: '2025-04-01T00:00:00Z', scope: 'order', requested_by: 'dpo@example.com', reason: 'Art. 17 request 42', ...overrides,
  }
  return { type: 'ERASE_PERSONAL_DATA', data, eventId: eraseEventIdFor(ACCOUNT, data.order_id) }
}

const EVENT_TYPE = {
  ORDER_ADD: 'OrderAdded',
  ORDER_UPDATE: 'OrderUpdated',
  ORDER_COMPLETE: 'OrderCompleted',
  ORDER_CANCELED: 'OrderCanceled',
  ERASE_PERSONAL_DATA: 'PersonalDataErased',
} as const

/** The fact a command appends when it succeeds: what a stream holds after it. */
export function factOf(command: OrderCommand): OrderEvent & { id: string } {
  return { type: EVENT_TYPE[command.type], data: command.data, id: command.eventId } as OrderEvent & { id: string }
}
