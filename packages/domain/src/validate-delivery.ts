import type { Static } from 'typebox'
import { Compile } from 'typebox/compile'
import type { TLocalizedValidationError } from 'typebox/error'
import type { WireEvent } from './commands.js'
import { decodeImage, forgetDecodedImages } from './decoded-images.js'
import { DELIVERY_REQUEST_SCHEMAS, FIELD_RULES } from './delivery-schema.js'
import { WaybillError } from './errors.js'
import type { DecodedImage } from './image-data-url.js'
import type { ValidDelivery } from './valid-delivery.js'

/** One field a delivery got wrong: where (a JSON pointer into the body), its dotted name, why. */
export interface FieldProblem {
  readonly pointer: string
  readonly field: string
  readonly reason: string
}

export type DeliveryValidation =
  | { readonly ok: true; readonly value: ValidDelivery }
  | { readonly ok: false; readonly error: WaybillError; readonly problems: readonly FieldProblem[] }

const VALIDATORS = {
  ORDER_ADD: Compile(DELIVERY_REQUEST_SCHEMAS.ORDER_ADD),
  ORDER_UPDATE: Compile(DELIVERY_REQUEST_SCHEMAS.ORDER_UPDATE),
  ORDER_COMPLETE: Compile(DELIVERY_REQUEST_SCHEMAS.ORDER_COMPLETE),
  ORDER_CANCELED: Compile(DELIVERY_REQUEST_SCHEMAS.ORDER_CANCELED),
}

/** Every field of each event's body in schema order, which is the order problems are reported in. */
const fieldOrder = (event: WireEvent): readonly string[] =>
  ['event', 'event_date', 'event_payload', ...Object.keys(DELIVERY_REQUEST_SCHEMAS[event].properties.event_payload.properties)]
const FIELD_ORDER: Readonly<Record<WireEvent, readonly string[]>> = {
  ORDER_ADD: fieldOrder('ORDER_ADD'),
  ORDER_UPDATE: fieldOrder('ORDER_UPDATE'),
  ORDER_COMPLETE: fieldOrder('ORDER_COMPLETE'),
  ORDER_CANCELED: fieldOrder('ORDER_CANCELED'),
}

/**
 * Payload validation, run after `readEventName` and the key's scope check: the body against its
 * event's compiled schema. A refusal is a `bad_request` whose detail names the first field in
 * schema order that is wrong (`event_payload.order_id: is required`); the error's `errors` list
 * every problem, the first included, each with its JSON pointer. Only own properties count (a prototype cannot supply a field); fields that do
 * not belong to the event are dropped; values are kept exactly as sent.
 */
export function validateDelivery(event: WireEvent, body: Readonly<Record<string, unknown>>): DeliveryValidation {
  try {
    const input = ownFields(body)
    const validator = VALIDATORS[event]
    if (validator.Check(input)) return { ok: true, value: toValid(input) }
    const problems = problemsOf(event, input, validator.Errors(input))
    const detail = problems.slice(0, 1).map((problem) => `${problem.field}: ${problem.reason}`).join('')
    const errors = problems.map(({ pointer, field, reason }) => ({ pointer, field, detail: reason }))
    return { ok: false, error: new WaybillError('bad_request', detail, { errors }), problems }
  } finally {
    forgetDecodedImages()
  }
}

/** The envelope and its payload with own properties only, on objects without a prototype. */
function ownFields(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const envelope = copyOwn(body)
  const payload = envelope.event_payload
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) envelope.event_payload = copyOwn(payload)
  return envelope
}

function copyOwn(object: object): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>
  for (const key of Object.keys(object)) copy[key] = (object as Record<string, unknown>)[key]
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

function problemsOf(event: WireEvent, body: Record<string, unknown>, errors: readonly TLocalizedValidationError[]): FieldProblem[] {
  const order = FIELD_ORDER[event]
  const found = new Map<string, FieldProblem & { readonly rank: number }>()
  const add = (pointer: string, reason?: string): void => {
    if (found.has(pointer)) return
    const path = pointer.split('/').slice(1)
    // Field names are unique across the envelope and the payloads, so the name alone ranks it.
    const name = pointer.slice(pointer.lastIndexOf('/') + 1)
    const rule = Object.hasOwn(FIELD_RULES, name) ? FIELD_RULES[name] : undefined
    const explained = reason ?? rule?.(valueAt(body, path)) ?? 'is not valid'
    found.set(pointer, { pointer, field: path.join('.'), reason: explained, rank: order.indexOf(name) })
  }
  for (const error of errors) {
    if (error.keyword === 'required') {
      for (const name of error.params.requiredProperties) add(`${error.instancePath}/${name}`, 'is required')
    } else {
      add(error.instancePath)
    }
  }
  return [...found.values()].sort((a, b) => a.rank - b.rank).map(({ pointer, field, reason }) => ({ pointer, field, reason }))
}

/** The value a pointer names; every step but the last is an object the schema already walked into. */
function valueAt(body: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = body
  for (const key of path) value = (value as Record<string, unknown>)[key]
  return value
}
