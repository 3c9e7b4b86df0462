/**
 * Account ids appear inside stream names (`order-<account>-<order_id>`), so they hold no `-`:
 * lower-case letters, digits and `_`, 1 to 64 of them. The one home of that rule.
 */
export const ACCOUNT_CHARACTERS = '[a-z0-9_]'
export const ACCOUNT_MAX_LENGTH = 64
export const ACCOUNT_PATTERN = new RegExp(`^${ACCOUNT_CHARACTERS}{1,${ACCOUNT_MAX_LENGTH}}$`)
/** The words of a refusal of the account rule. */
export const ACCOUNT_REFUSAL = `must be lower-case letters, digits and _ (at most ${ACCOUNT_MAX_LENGTH} characters)`

/** The account every test key belongs to; test keys never see any other. */
export const SANDBOX_ACCOUNT = 'sandbox'

/**
 * Not an account: what an auditor key names instead of one, meaning every account
 * (docs/contract.md#scopes). It breaks the account rule on purpose (`*` is not an account
 * character), so it can never be part of a stream name: `streamNameFor` refuses it, and a key
 * holding it writes nothing. Only the key rules (@waybill/keys) accept it, and only for keys whose
 * scopes read.
 */
export const ALL_ACCOUNTS = '*'

export function isAccountId(value: string): boolean {
  return ACCOUNT_PATTERN.test(value)
}
