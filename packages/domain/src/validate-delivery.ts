import type { Static } from 'typebox'
import type { WireEvent } from './commands.js'
import { decodeImage, forgetDecodedImages } from './decoded-images.js'
import { DELIVERY_REQUEST_SCHEMAS } from './delivery-schema.js'
import type { WaybillError } from './errors.js'
import type { DecodedImage } from './image-data-url.js'
import type { ValidDelivery } from './valid-delivery.js'
import { compileWireValidator } from './wire-validator.js'

export type DeliveryValidation =
  | { readonly ok: true; readonly value: ValidDelivery }
  | { readonly ok: false; readonly error: WaybillError }

// A body is checked as sent: its strings are the courier's, nothing is converted.
const VALIDATORS = {
  ORDER_ADD: compileWireValidator(DELIVERY_REQUEST_SCHEMAS.ORDER_ADD, { convert: false }),
  ORDER_UPDATE: compileWireValidator(DELIVERY_REQUEST_SCHEMAS.ORDER_UPDATE, { convert: false }),
  ORDER_COMPLETE: compileWireValidator(DELIVERY_REQUEST_SCHEMAS.ORDER_COMPLETE, { convert: false }),
  ORDER_CANCELED: compileWireValidator(DELIVERY_REQUEST_SCHEMAS.ORDER_CANCELED, { convert: false }),
}

/**
 * Payload validation, run after `readEventName` and the key's scope check: the body against its
 * event's compiled schema (the wire validator). A refusal is a `bad_request` whose detail names
 * the first field in schema order that is wrong (`event_payload.order_id: is required`); the
 * error's `errors` list every problem, the first included, each with its JSON pointer. Only own
 * properties count (a prototype cannot supply a field); fields that do not belong to the event are
 * dropped; values are kept exactly as sent.
 */
export function validateDelivery(event: WireEvent, body: Readonly<Record<string, unknown>>): DeliveryValidation {
  try {
    const checked = VALIDATORS[event](ownFields(event, body))
    return checked.error === undefined ? { ok: true, value: toValid(checked.value) } : { ok: false, error: checked.error }
  } finally {
    forgetDecodedImages()
  }
}

/** Each event's envelope fields and payload fields, in schema order: all a delivery can keep. */
const fieldsOf = (event: WireEvent) => {
  const { properties } = DELIVERY_REQUEST_SCHEMAS[event]
  return { envelope: Object.keys(properties), payload: Object.keys(properties.event_payload.properties) }
}
const FIELDS = {
  ORDER_ADD: fieldsOf('ORDER_ADD'),
  ORDER_UPDATE: fieldsOf('ORDER_UPDATE'),
  ORDER_COMPLETE: fieldsOf('ORDER_COMPLETE'),
  ORDER_CANCELED: fieldsOf('ORDER_CANCELED'),
}

/**
 * The envelope and its payload with the event's own properties only, copied in schema order onto
 * objects without a prototype, so that nothing inherited can supply a field (the compiled check
 * tests presence with `in`). Fields the event does not have are dropped here. Copied in one order
 * onto an object whose prototype was removed before any property was added, every body of an
 * event has the same shape and V8 keeps it in fast mode, which the compiled check's many reads of
 * each field need (`Object.create(null)` makes a dictionary, and each of those reads a lookup).
 */
function ownFields(event: WireEvent, body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields = FIELDS[event]
  const envelope = copyOwn(body, fields.envelope)
  const payload = envelope.event_payload
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) envelope.event_payload = copyOwn(payload, fields.payload)
  return envelope
}

function copyOwn(object: object, names: readonly string[]): Record<string, unknown> {
  const copy = Object.setPrototypeOf({}, null) as Record<string, unknown>
  for (const name of names) if (Object.hasOwn(object, name)) copy[name] = (object as Record<string, unknown>)[name]
  return copy
}

type Envelope<Event extends WireEvent> = Static<(typeof DELIVERY_REQUEST_SCHEMAS)[Event]>

function toValid(body: Envelope<WireEvent>): ValidDelivery {
  const { event_date } = body
  switch (body.event) {
    case 'ORDER_ADD': {
      const { order_id, customer, location, status, address, delivery_date } = body.event_payload
      return { event: body.event, event_date, payload: { order_id, customer, location, status, address, delivery_date } }
    }
    case 'ORDER_UPDATE': {
      const { order_id, status, address, delivery_date } = body.event_payload
      return { event: body.event, event_date, payload: { order_id, status, address, delivery_date } }
    }
    case 'ORDER_COMPLETE': {
      const { order_id, address, delivery_date, pod, recipient, signature } = body.event_payload
      const signed = signature === undefined || signature.trim() === '' ? {} : { signature: decoded(signature) }
      return { event: body.event, event_date, payload: { order_id, address, delivery_date, pod: decoded(pod), recipient, ...signed } }
    }
    case 'ORDER_CANCELED': {
      const { order_id, reason } = body.event_payload
      return { event: body.event, event_date, payload: { order_id, reason } }
    }
  }
}

/** The image the schema's format check already decoded (and accepted). */
function decoded(text: string): DecodedImage {
  const decoding = decodeImage(text)
  /* c8 ignore next */
  if (!decoding.ok) throw new TypeError('an image the schema accepted does not decode')
  return decoding.image
}
