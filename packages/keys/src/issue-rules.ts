import { ACCOUNT_MAX_LENGTH, ALL_ACCOUNTS, isAccountId, SANDBOX_ACCOUNT, textRefusal } from '@waybill/domain'
import { AUDIT_SCOPE, READ_ONLY_SCOPES, type Scope } from './scopes.js'

/** At most this many characters (code points) in a key's label. */
export const LABEL_MAX_LENGTH = 100

/** What a key to be issued (or an active key after an update) must satisfy: the operator's choices. */
export interface IssueRequest {
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly test?: boolean
  readonly label?: string | null
}

export type IssueRuleCode =
  | 'invalid_account' | 'test_key_outside_sandbox' | 'no_scopes' | 'wildcard_not_auditor' | 'audit_outside_wildcard' | 'invalid_label'

interface IssueRule {
  readonly code: IssueRuleCode
  readonly holds: (request: IssueRequest) => boolean
  readonly problem: (request: IssueRequest) => string
}

const labelRule = (label: unknown): string | null => textRefusal(label, LABEL_MAX_LENGTH)
const isAuditor = (request: IssueRequest): boolean => request.account === ALL_ACCOUNTS

// In the order the operator hears about them: the account, then the test flag, then the scopes,
// then the label.
const ISSUE_RULES: readonly IssueRule[] = [
  {
    code: 'invalid_account',
    // `*` is the one name beside the account rule: auditor keys, checked by the two rules below.
    holds: (request) => isAccountId(request.account) || isAuditor(request),
    problem: (request) => `account "${request.account}" must be lower-case letters, digits and _ (at most ${ACCOUNT_MAX_LENGTH} characters)`,
  },
  {
    code: 'test_key_outside_sandbox',
    holds: (request) => request.test !== true || request.account === SANDBOX_ACCOUNT,
    problem: () => `test keys belong to the ${SANDBOX_ACCOUNT} account only`,
  },
  { code: 'no_scopes', holds: (request) => request.scopes.length > 0, problem: () => 'a key needs at least one scope' },
  {
    // A key that sees every account must never write: its scopes only read, and it is an auditor's.
    code: 'wildcard_not_auditor',
    holds: (request) => !isAuditor(request) ||
      (request.scopes.includes(AUDIT_SCOPE) && request.scopes.every((scope) => READ_ONLY_SCOPES.includes(scope))),
    problem: () => `the ${ALL_ACCOUNTS} account (every account) is for auditor keys: scope ${AUDIT_SCOPE}, with orders:read at most, nothing that writes`,
  },
  {
    code: 'audit_outside_wildcard',
    holds: (request) => isAuditor(request) || !request.scopes.includes(AUDIT_SCOPE),
    problem: () => `${AUDIT_SCOPE} is for auditor keys, whose account is ${ALL_ACCOUNTS} (every account)`,
  },
  {
    code: 'invalid_label',
    holds: (request) => request.label === undefined || request.label === null || labelRule(request.label) === null,
    problem: (request) => `label ${String(labelRule(request.label))}`,
  },
]

function brokenRule(request: IssueRequest): IssueRule | undefined {
  return ISSUE_RULES.find((rule) => !rule.holds(request))
}

/** The first issue rule `request` breaks, or null. The key decider refuses such an IssueKey or UpdateKey. */
export function issueRejection(request: IssueRequest): IssueRuleCode | null {
  return brokenRule(request)?.code ?? null
}

/** Why a key cannot be issued as asked, in the operator's words, or null when it can. */
export function issueProblem(request: IssueRequest): string | null {
  return brokenRule(request)?.problem(request) ?? null
}
