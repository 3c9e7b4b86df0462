/**
 * Account ids appear inside stream names (`order-<account>-<order_id>`), so they hold no `-`:
 * lower-case letters, digits and `_`, 1 to 64 of them. The one home of that rule.
 */
export const ACCOUNT_CHARACTERS = '[a-z0-9_]'
export const ACCOUNT_MAX_LENGTH = 64
export const ACCOUNT_PATTERN = new RegExp(`^${ACCOUNT_CHARACTERS}{1,${ACCOUNT_MAX_LENGTH}}$`)

/** The account every test key belongs to; test keys never see any other. */
export const SANDBOX_ACCOUNT = 'sandbox'

export function isAccountId(value: string): boolean {
  return ACCOUNT_PATTERN.test(value)
}
