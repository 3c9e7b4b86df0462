import Type, { type Static, type TSchema } from 'typebox'
import type { WireEvent } from './commands.js'
import { image, orderId, text, timestamp, wireStatus } from './wire-fields.js'

/*
 * The wire format of POST /v1/deliveries: one TypeBox schema per event, built from the wire's
 * fields (wire-fields.ts), which the validator compiles (validate-delivery.ts) and the OpenAPI
 * document shows, so the two cannot drift. Extra properties are allowed: they are ignored and
 * never stored.
 */

const address = text('Delivery address.')

export const OrderAddPayloadSchema = Type.Object({
  order_id: orderId(),
  customer: text('Identifier of the customer who receives the delivery.'),
  location: text("Identifier of the customer's location where the order is delivered."),
  status: wireStatus(),
  address,
  delivery_date: timestamp('Planned or estimated delivery date.'),
})

export const OrderUpdatePayloadSchema = Type.Object({
  order_id: orderId(),
  status: wireStatus(),
  address,
  delivery_date: timestamp('Planned or estimated delivery date.'),
})

export const OrderCompletePayloadSchema = Type.Object({
  order_id: orderId(),
  address,
  delivery_date: timestamp('When the delivery occurred.'),
  pod: image('Image of the delivery location (proof of delivery).'),
  recipient: text('Name of the person who received and signed for the delivery.'),
  signature: Type.Optional(
    Type.Union([
      image("Image of the recipient's signature."),
      Type.String({ pattern: '^\\s*$', description: 'Blank: no signature (as an empty form field sends).' }),
    ]),
  ),
})

export const OrderCanceledPayloadSchema = Type.Object({
  order_id: orderId(),
  reason: text('Why the order was canceled.'),
})

const envelope = <Event extends WireEvent, Payload extends TSchema>(event: Event, payload: Payload, description: string) =>
  Type.Object(
    {
      event: Type.Literal(event, { description: 'Name of the event.' }),
      event_date: timestamp('When the event occurred.'),
      event_payload: payload,
    },
    { description },
  )

export const OrderAddRequestSchema = envelope('ORDER_ADD', OrderAddPayloadSchema, 'A new order is created (201).')
export const OrderUpdateRequestSchema = envelope('ORDER_UPDATE', OrderUpdatePayloadSchema, 'An order changes (202).')
export const OrderCompleteRequestSchema = envelope('ORDER_COMPLETE', OrderCompletePayloadSchema, 'An order was delivered; it is locked (202).')
export const OrderCanceledRequestSchema = envelope('ORDER_CANCELED', OrderCanceledPayloadSchema, 'An order was canceled; it is locked (202).')

/** The envelope schema of each event, as the validator compiles it. */
export const DELIVERY_REQUEST_SCHEMAS = {
  ORDER_ADD: OrderAddRequestSchema,
  ORDER_UPDATE: OrderUpdateRequestSchema,
  ORDER_COMPLETE: OrderCompleteRequestSchema,
  ORDER_CANCELED: OrderCanceledRequestSchema,
} as const satisfies Record<WireEvent, TSchema>

/** The body of POST /v1/deliveries: one of the four event envelopes, selected by `event`. */
export const DeliveryRequestSchema = Type.Union(
  [OrderAddRequestSchema, OrderUpdateRequestSchema, OrderCompleteRequestSchema, OrderCanceledRequestSchema],
  { description: 'A delivery event: the envelope, with the payload of its event.' },
)

export type DeliveryRequest = Static<typeof DeliveryRequestSchema>
