import {
  ACCOUNT_REFUSAL, isAccountId, STORED_EVENT_TYPE, WIRE_EVENTS, type OrderEventType, type WireEvent,
} from '@waybill/domain'
import { WebhookInputError } from './endpoint-url.js'

/**
 * `--events ORDER_ADD,ORDER_COMPLETE`: the wire names an operator knows from the contract, as
 * the stored types the log holds. Throws `WebhookInputError` naming an unknown one.
 */
export function parseEventNames(text: string): OrderEventType[] {
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '')
  if (names.length === 0) throw new WebhookInputError(`--events: name at least one event (${WIRE_EVENTS.join(', ')})`)
  const types = new Set<OrderEventType>()
  for (const name of names) {
    if (!(WIRE_EVENTS as readonly string[]).includes(name)) {
      throw new WebhookInputError(`--events: unknown event "${name}"; events: ${WIRE_EVENTS.join(', ')}`)
    }
    types.add(STORED_EVENT_TYPE[name as WireEvent])
  }
  return [...types]
}

/** The wire name of a stored order event type, for listings. */
export function wireNameOf(type: OrderEventType): WireEvent {
  return WIRE_EVENTS.find((name) => STORED_EVENT_TYPE[name] === type) as WireEvent
}

/** `--account`: an account id, by the domain's rule. */
export function parseAccount(text: string): string {
  if (!isAccountId(text)) throw new WebhookInputError(`--account: "${text}" ${ACCOUNT_REFUSAL}`)
  return text
}
