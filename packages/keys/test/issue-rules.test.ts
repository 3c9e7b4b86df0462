import t from 'tap'
import { ACCOUNT_MAX_LENGTH } from '@waybill/domain'
import { issueProblem, issueRejection } from '../src/issue-rules.js'

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
