import type { AddOrder, CancelOrder, CompleteOrder, OrderCommand, UpdateOrder } from '../src/commands.js'
import { eventIdFor } from '../src/event-id.js'
import type { ImageRef, OrderEvent } from '../src/events.js'

export const ACCOUNT = 'acme_1'
const ORDER_ID = 'A-1001'

export const POD: ImageRef = { sha256: 'a'.repeat(64), media_type: 'image/jpeg', bytes: 1234 }
export const SIGNATURE: ImageRef = { sha256: 'b'.repeat(64), media_type: 'image/png', bytes: 99 }

function withId<C extends Omit<OrderCommand, 'eventId'>>(command: C): C & { eventId: string } {
  return { ...command, eventId: eventIdFor(ACCOUNT, command.type, command.data) }
}

export function addOrder(overrides: Partial<AddOrder['data']> = {}): AddOrder {
  return withId({
    type: 'ORDER_ADD',
    data: {
      order_id: ORDER_ID,
      customer: 'C-7',
      location: 'L-3',
      status: 'pending',
      address: '1 Quay Street',
      delivery_date: '2025-03-01T10:00:00Z',
      event_date: '2025-02-27T08:00:00Z',
      ...overrides,
    },
  } as const)
}

export function updateOrder(overrides: Partial<UpdateOrder['data']> = {}): UpdateOrder {
  return withId({
    type: 'ORDER_UPDATE',
    data: {
      order_id: ORDER_ID,
      status: 'in_progress',
      address: '2 Quay Street',
      delivery_date: '2025-03-02T11:00:00Z',
      event_date: '2025-02-28T09:00:00Z',
      ...overrides,
    },
  } as const)
}

export function completeOrder(overrides: Partial<CompleteOrder['data']> = {}): CompleteOrder {
  return withId({
    type: 'ORDER_COMPLETE',
    data: {
      order_id: ORDER_ID,
      address: '2 Quay Street',
      delivery_date: '2025-03-02T11:30:00Z',
      recipient: 'R. Doe',
      pod: POD,
      signature: SIGNATURE,
      event_date: '2025-03-02T11:31:00Z',
      ...overrides,
    },
  } as const)
}

export function cancelOrder(overrides: Partial<CancelOrder['data']> = {}): CancelOrder {
  return withId({
    type: 'ORDER_CANCELED',
    data: { order_id: ORDER_ID, reason: 'customer moved', event_date: '2025-03-01T07:00:00Z', ...overrides },
  } as const)
}

const EVENT_TYPE = {
  ORDER_ADD: 'OrderAdded',
  ORDER_UPDATE: 'OrderUpdated',
  ORDER_COMPLETE: 'OrderCompleted',
  ORDER_CANCELED: 'OrderCanceled',
} as const

/** The fact a command appends when it succeeds: what a stream holds after it. */
export function factOf(command: OrderCommand): OrderEvent & { id: string } {
  return { type: EVENT_TYPE[command.type], data: command.data, id: command.eventId } as OrderEvent & { id: string }
}
