import Type, { type Static, type TSchema } from 'typebox'
import type { WireEvent } from './commands.js'
import { imageRule, objectRule, statusRule, textRule, timestampRule, type FieldRule } from './field-rules.js'
import { IMAGE_MAX_BASE64_LENGTH, LIMITS } from './limits.js'
import { WIRE_STATUSES } from './statuses.js'
import { IMAGE_FORMAT, TIMESTAMP_FORMAT } from './wire-formats.js'

/*
 * The wire format of POST /v1/deliveries: one TypeBox schema per event, which the validator
 * compiles (validate-delivery.ts) and the OpenAPI document shows, so the two cannot drift.
 * Patterns are ECMAScript with the `u` flag (as TypeBox evaluates them); lengths count code
 * points. What a pattern cannot say is a named format (wire-formats.ts). Extra properties are
 * allowed: they are ignored and never stored.
 */

const NO_CONTROL = '\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF'
/** Not blank, no C0/DEL/C1 control character, no lone surrogate. */
const TEXT_PATTERN = `^(?=[\\s\\S]*\\S)[^${NO_CONTROL}]*$`
const TIMESTAMP_PATTERN =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$'

/** `abc` → `[aA][bB][cC]`: JSON Schema patterns have no case-insensitive flag. */
function caseless(text: string): string {
  return text.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)
}
// Only the prefix: the base64 itself is judged by the image format. A pattern over the whole
// base64 (`(?:[A-Za-z0-9+/]{4})*…$`) overflows V8's regular-expression stack on a 5 MiB image,
// in our validator and in any client a generator builds from the OpenAPI document.
const IMAGE_PATTERN = `^${caseless('data:image/')}(?:${caseless('jpeg')}|${caseless('png')}|${caseless('webp')});${caseless('base64')},`
const IMAGE_MAX_LENGTH = 'data:image/jpeg;base64,'.length + IMAGE_MAX_BASE64_LENGTH

const text = (description: string, maxLength: number = LIMITS.stringMaxLength) =>
  Type.String({ minLength: 1, maxLength, pattern: TEXT_PATTERN, description })

const timestamp = (description: string) =>
  Type.String({
    pattern: TIMESTAMP_PATTERN,
    format: TIMESTAMP_FORMAT,
    description: `${description} UTC, YYYY-MM-DDTHH:MM:SSZ with up to 9 fraction digits; a real calendar time.`,
  })

const image = (description: string) =>
  Type.String({
    maxLength: IMAGE_MAX_LENGTH,
    pattern: IMAGE_PATTERN,
    format: IMAGE_FORMAT,
    description: `${description} data:<image/jpeg|image/png|image/webp>;base64,<data>: strict base64 (RFC 4648, no line breaks), at most ${LIMITS.imageMaxBytes} bytes decoded, bytes of that image type.`,
  })

const orderId = text('Identifier of the order, chosen by the caller; unique within the account of the API key.', LIMITS.orderIdMaxLength)
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

/** Which rule explains a refusal of each wire field (one meaning per name, in every event). */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  event_date: timestampRule,
  event_payload: objectRule,
  order_id: textRule(LIMITS.orderIdMaxLength),
  customer: textRule(LIMITS.stringMaxLength),
  location: textRule(LIMITS.stringMaxLength),
  status: statusRule,
  address: textRule(LIMITS.stringMaxLength),
  delivery_date: timestampRule,
  pod: imageRule,
  recipient: textRule(LIMITS.stringMaxLength),
  signature: imageRule,
  reason: textRule(LIMITS.stringMaxLength),
}
