import t from 'tap'
import { ACCOUNT_MAX_LENGTH } from '@waybill/domain'
import { issueProblem, issueRejection, LABEL_MAX_LENGTH } from '../src/issue-rules.js'

t.test('a key that can be issued: no rejection, no problem', async (t) => {
  for (const request of [
    { account: 'acme', scopes: ['orders:read'] },
    { account: 'a'.repeat(ACCOUNT_MAX_LENGTH), scopes: ['orders:read'], test: false },
    { account: 'sandbox', scopes: ['orders:add'], test: true },
  ] as const) {
    t.equal(issueRejection(request), null)
    t.equal(issueProblem(request), null)
  }
})

t.test('each broken rule has its code and its words', async (t) => {
  for (const [request, code, problem] of [
    [{ account: 'a'.repeat(ACCOUNT_MAX_LENGTH + 1), scopes: ['orders:read'] }, 'invalid_account', /at most 64 characters/],
    [{ account: 'Acme-1', scopes: ['orders:read'] }, 'invalid_account', /^account "Acme-1" must be lower-case letters, digits and _/],
    [{ account: 'acme', scopes: ['orders:read'], test: true }, 'test_key_outside_sandbox', /^test keys belong to the sandbox account only$/],
    [{ account: 'sandbox', scopes: [] }, 'no_scopes', /^a key needs at least one scope$/],
  ] as const) {
    t.equal(issueRejection(request), code)
    t.match(issueProblem(request), problem)
  }
})

t.test('auditor keys (account *) and labels: their codes and words', async (t) => {
  for (const request of [
    { account: '*', scopes: ['orders:audit'] },
    { account: '*', scopes: ['orders:audit', 'orders:read'], label: 'external audit 2025' },
    { account: 'acme', scopes: ['orders:read'], label: null },
  ] as const) {
    t.equal(issueRejection(request), null, JSON.stringify(request))
  }
  for (const [request, code, problem] of [
    [{ account: '*', scopes: ['orders:read'] }, 'wildcard_not_auditor', /^the \* account \(every account\) is for auditor keys: scope orders:audit, with orders:read at most, nothing that writes$/],
    [{ account: '*', scopes: ['orders:audit', 'orders:complete'] }, 'wildcard_not_auditor', /auditor keys/],
    [{ account: 'acme', scopes: ['orders:audit'] }, 'audit_outside_wildcard', /^orders:audit is for auditor keys, whose account is \* \(every account\)$/],
    [{ account: 'acme', scopes: ['orders:read'], label: ' ' }, 'invalid_label', /^label must not be empty$/],
    [{ account: 'acme', scopes: ['orders:read'], label: 'x'.repeat(LABEL_MAX_LENGTH + 1) }, 'invalid_label', /^label must be at most 100 characters$/],
    [{ account: 'acme', scopes: ['orders:read'], label: 'a\u0007b' }, 'invalid_label', /^label must not contain control characters$/],
    [{ account: 'All', scopes: ['orders:audit'] }, 'invalid_account', /^account "All"/],
  ] as const) {
    t.equal(issueRejection(request), code, JSON.stringify(request))
    t.match(issueProblem(request), problem)
  }
})
