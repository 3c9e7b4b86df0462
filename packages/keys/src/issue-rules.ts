import { ACCOUNT_MAX_LENGTH, isAccountId, SANDBOX_ACCOUNT } from '@waybill/domain'
import type { Scope } from './scopes.js'

/** What a key to be issued must satisfy (the operator's choices). */
export interface IssueRequest {
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly test?: boolean
}

export type IssueRuleCode = 'invalid_account' | 'test_key_outside_sandbox' | 'no_scopes'

interface IssueRule {
  readonly code: IssueRuleCode
  readonly holds: (request: IssueRequest) => boolean
  readonly problem: (request: IssueRequest) => string
}

// In the order the operator hears about them: the account, then the test flag, then the scopes.
const ISSUE_RULES: readonly IssueRule[] = [
  {
    code: 'invalid_account',
    holds: (request) => isAccountId(request.account),
    problem: (request) => `account "${request.account}" must be lower-case letters, digits and _ (at most ${ACCOUNT_MAX_LENGTH} characters)`,
  },
  {
    code: 'test_key_outside_sandbox',
    holds: (request) => request.test !== true || request.account === SANDBOX_ACCOUNT,
    problem: () => `test keys belong to the ${SANDBOX_ACCOUNT} account only`,
  },
  { code: 'no_scopes', holds: (request) => request.scopes.length > 0, problem: () => 'a key needs at least one scope' },
]

function brokenRule(request: IssueRequest): IssueRule | undefined {
  return ISSUE_RULES.find((rule) => !rule.holds(request))
}

/** The first issue rule `request` breaks, or null. The key decider refuses such an IssueKey. */
export function issueRejection(request: IssueRequest): IssueRuleCode | null {
  return brokenRule(request)?.code ?? null
}

/** Why a key cannot be issued as asked, in the operator's words, or null when it can. */
export function issueProblem(request: IssueRequest): string | null {
  return brokenRule(request)?.problem(request) ?? null
}
