import Type, { type Static } from 'typebox'
import { IMAGE_MAX_BASE64_LENGTH, LIMITS } from './limits.js'
import { WIRE_STATUSES } from './statuses.js'

/*
 * The wire format of POST /v1/deliveries as JSON Schema, for the OpenAPI document and the tests.
 * Patterns are ECMAScript with the `u` flag (as TypeBox and Ajv evaluate them); lengths count
 * code points. `validateDelivery` enforces all of this and what a schema cannot say: that a date
 * exists in the calendar (no Feb 30), that base64 pad bits are zero, the exact decoded size, and
 * that image bytes match their media type. Extra properties are allowed: they are ignored.
 */

const NO_CONTROL = '\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF'
/** Not blank, no C0/DEL/C1 control character, no lone surrogate. */
const TEXT_PATTERN = `^(?=[\\s\\S]*\\S)[^${NO_CONTROL}]*$`
const TIMESTAMP_PATTERN =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$'

/** `abc` → `[aA][bB][cC]`: JSON Schema patterns have no case-insensitive flag. */
function caseless(text: string): string {
  return [...text].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('')
}
const BASE64_PATTERN = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?'
const IMAGE_PATTERN = `^${caseless('data:image/')}(?:${caseless('jpeg')}|${caseless('png')}|${caseless('webp')});${caseless('base64')},${BASE64_PATTERN}$`
const IMAGE_MAX_LENGTH = 'data:image/jpeg;base64,'.length + IMAGE_MAX_BASE64_LENGTH

const text = (description: string) =>
  Type.String({ minLength: 1, maxLength: LIMITS.stringMaxLength, pattern: TEXT_PATTERN, description })

const timestamp = (description: string) =>
  Type.String({ pattern: TIMESTAMP_PATTERN, description: `${description} UTC, YYYY-MM-DDTHH:MM:SSZ, optional fraction.` })

const image = (description: string) =>
  Type.String({
    maxLength: IMAGE_MAX_LENGTH,
    pattern: IMAGE_PATTERN,
    description: `${description} data:<image/jpeg|image/png|image/webp>;base64,<data>, at most ${LIMITS.imageMaxBytes} bytes decoded; the bytes must be of that type.`,
  })

const orderId = Type.String({
  minLength: 1,
  maxLength: LIMITS.orderIdMaxLength,
  pattern: TEXT_PATTERN,
  description: 'Identifier of the order, chosen by the caller; unique within the account of the API key.',
})
const status = Type.Enum([...WIRE_STATUSES], { description: 'Status of the order.' })
const address = text('Delivery address.')

export const OrderAddPayloadSchema = Type.Object({
  order_id: orderId,
  customer: text('Identifier of the customer who receives the delivery.'),
  location: text("Identifier of the customer's location where the order is delivered."),
  status,
  address,
  delivery_date: timestamp('Planned or estimated delivery date.'),
})

export const OrderUpdatePayloadSchema = Type.Object({
  order_id: orderId,
  status,
  address,
  delivery_date: timestamp('Planned or estimated delivery date.'),
})

export const OrderCompletePayloadSchema = Type.Object({
  order_id: orderId,
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
  order_id: orderId,
  reason: text('Why the order was canceled.'),
})

const envelope = <Event extends string, Payload extends Type.TSchema>(event: Event, payload: Payload, description: string) =>
  Type.Object(
    {
      event: Type.Literal(event, { description: 'Name of the event.' }),
      event_date: timestamp('When the event occurred,'),
      event_payload: payload,
    },
    { description },
  )

export const OrderAddRequestSchema = envelope('ORDER_ADD', OrderAddPayloadSchema, 'A new order is created (201).')
export const OrderUpdateRequestSchema = envelope('ORDER_UPDATE', OrderUpdatePayloadSchema, 'An order changes (202).')
export const OrderCompleteRequestSchema = envelope('ORDER_COMPLETE', OrderCompletePayloadSchema, 'An order was delivered; it is locked (202).')
export const OrderCanceledRequestSchema = envelope('ORDER_CANCELED', OrderCanceledPayloadSchema, 'An order was canceled; it is locked (202).')

/** The body of POST /v1/deliveries: one of the four event envelopes, selected by `event`. */
export const DeliveryRequestSchema = Type.Union(
  [OrderAddRequestSchema, OrderUpdateRequestSchema, OrderCompleteRequestSchema, OrderCanceledRequestSchema],
  { description: 'A delivery event (SPEC.md §2).' },
)

export type DeliveryRequest = Static<typeof DeliveryRequestSchema>
