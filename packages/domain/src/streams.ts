import { ACCOUNT_CHARACTERS, isAccountId } from './accounts.js'

/** The category of order streams: the part of the stream name before the first `-`. */
export const ORDER_CATEGORY = 'order'

const ORDER_STREAM = new RegExp(`^${ORDER_CATEGORY}-(${ACCOUNT_CHARACTERS}+)-([\\s\\S]+)$`)

/**
 * The stream of one order of one account: `order-<account>-<order_id>`
 * (docs/design.md#streams-and-account-scoping). The order_id is kept verbatim, `-` included. Throws a TypeError on an account id
 * that breaks the account rule or an empty order_id: both would be programming errors, not
 * client input.
 */
export function streamNameFor(account: string, orderId: string): string {
  if (!isAccountId(account)) throw new TypeError(`not an account id: ${JSON.stringify(account)}`)
  if (orderId.length === 0) throw new TypeError('an order_id cannot be empty')
  return `${ORDER_CATEGORY}-${account}-${orderId}`
}

/** The inverse of `streamNameFor`; null for a name that is not an order stream. */
export function parseOrderStreamName(name: string): { readonly account: string; readonly orderId: string } | null {
  const match = ORDER_STREAM.exec(name)
  if (match === null) return null
  const [, account = '', orderId = ''] = match
  return { account, orderId }
}
