import { WIRE_EVENTS, type WireEvent } from './commands.js'
import { WaybillError } from './errors.js'
import { IS_REQUIRED, mustBeOneOf } from './refusal-words.js'

const EVENTS: readonly string[] = WIRE_EVENTS

/**
 * The first wire check after parsing (docs/contract.md#order-of-checks): the body must be an object whose own
 * `event` is one of the four names, else `unknown_event` (so `{}` is unknown_event). On success
 * the body comes back typed as a record, ready for `validateDelivery`.
 */
export function readEventName(
  body: unknown,
): { ok: true; event: WireEvent; body: Record<string, unknown> } | { ok: false; error: WaybillError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: new WaybillError('unknown_event', 'the body must be an object with an event field') }
  }
  if (!Object.hasOwn(body, 'event')) return { ok: false, error: new WaybillError('unknown_event', `event: ${IS_REQUIRED}`) }
  const event: unknown = (body as Record<string, unknown>).event
  if (typeof event !== 'string' || !EVENTS.includes(event)) {
    return { ok: false, error: new WaybillError('unknown_event', `event: ${mustBeOneOf(WIRE_EVENTS)}`) }
  }
  return { ok: true, event: event as WireEvent, body: body as Record<string, unknown> }
}
