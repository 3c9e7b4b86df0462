import t from 'tap'
import type { KeyCommand } from '../src/key-commands.js'
import { foldKeyStream, keyDecider } from '../src/key-decider.js'
import { factOf, issueKey, linkReplacement, REPLACEMENT_ID, REVOKED_AT, revokeKey } from './fixtures.js'

/** Given the facts of these commands in the stream, when this command arrives, then the decision. */
function given(...history: KeyCommand[]) {
  const state = foldKeyStream(history.map(factOf))
  return { when: (command: KeyCommand) => keyDecider.decide(command, state) }
}

const appended = (command: KeyCommand) => ({ outcome: 'append', events: [factOf(command)] })
const rejected = (error: string) => ({ outcome: 'rejected', error })
const issued = issueKey()
const revoked = revokeKey()
const linked = linkReplacement()

t.test('no key + IssueKey → KeyIssued, and the key is active', async (t) => {
  t.same(given().when(issued), appended(issued))
  t.same(foldKeyStream([factOf(issued)]).record, {
    keyId: issued.data.key_id, account: 'acme', scopes: ['orders:add', 'orders:read'], hash: issued.data.hash, test: false,
    state: 'active', replaces: null, replacedBy: null, issuedAt: issued.data.issued_at, revokedAt: null, reason: null,
  })
  const sandbox = issueKey({ account: 'sandbox', test: true, replaces: 'OldKey123456' })
  t.same(given().when(sandbox), appended(sandbox), 'a test key for the sandbox account, replacing another')
})

t.test('IssueKey with a scope named twice → stored once', async (t) => {
  const twice = issueKey({ scopes: ['orders:read', 'orders:add', 'orders:read'] })
  t.same(given().when(twice), appended(issueKey({ scopes: ['orders:read', 'orders:add'] })))
})

t.test('IssueKey that breaks an issue rule → rejected with the rule, in the order account, test flag, scopes', async (t) => {
  t.same(given().when(issueKey({ account: 'Acme-1' })), rejected('invalid_account'))
  t.same(given().when(issueKey({ account: 'a'.repeat(65) })), rejected('invalid_account'))
  t.same(given().when(issueKey({ account: '' })), rejected('invalid_account'))
  t.same(given().when(issueKey({ account: 'Acme', test: true, scopes: [] })), rejected('invalid_account'))
  t.same(given().when(issueKey({ test: true })), rejected('test_key_outside_sandbox'))
  t.same(given().when(issueKey({ test: true, scopes: [] })), rejected('test_key_outside_sandbox'))
  t.same(given().when(issueKey({ scopes: [] })), rejected('no_scopes'))
})

t.test('IssueKey on a stream that holds a key → key_exists, whatever its state', async (t) => {
  const again = issueKey({ account: 'other' }, 'event-issue-again')
  t.same(given(issued).when(again), rejected('key_exists'))
  t.same(given(issued, revoked).when(again), rejected('key_exists'))
  t.same(given(issued, revoked, linked).when(again), rejected('key_exists'))
})

t.test('RevokeKey: only an active key is revoked', async (t) => {
  t.same(given(issued).when(revoked), appended(revoked))
  t.match(foldKeyStream([issued, revoked].map(factOf)).record, { state: 'revoked', revokedAt: REVOKED_AT, reason: 'leaked', replacedBy: null })
  const again = revokeKey({ reason: 'again' }, 'event-revoke-again')
  t.same(given().when(again), rejected('key_unknown'))
  t.same(given(issued, revoked).when(again), rejected('key_revoked'))
  t.same(given(issued, revoked, linked).when(again), rejected('key_rotated'))
})

t.test('LinkReplacement: only a revoked key is linked to its replacement', async (t) => {
  t.same(given(issued, revoked).when(linked), appended(linked))
  t.match(foldKeyStream([issued, revoked, linked].map(factOf)).record, {
    state: 'rotated', replacedBy: REPLACEMENT_ID, revokedAt: REVOKED_AT, reason: 'leaked',
  }, 'the revocation stays on the record')
  const again = linkReplacement({ replacement_key_id: 'Another12345' }, 'event-link-again')
  t.same(given().when(again), rejected('key_unknown'))
  t.same(given(issued).when(again), rejected('key_active'), 'a rotation revokes first')
  t.same(given(issued, revoked, linked).when(again), rejected('key_rotated'))
})

t.test('an exact retry (its event id is in the stream) is already applied, even after the key moved on', async (t) => {
  t.same(given(issued).when(issued), { outcome: 'already_applied' })
  t.same(given(issued, revoked, linked).when(issued), { outcome: 'already_applied' })
  t.same(given(issued, revoked).when(revoked), { outcome: 'already_applied' })
  t.same(given(issued, revoked, linked).when(revoked), { outcome: 'already_applied' })
  t.same(given(issued, revoked, linked).when(linked), { outcome: 'already_applied' })
  t.same(given(issued, revoked).when(revokeKey()), { outcome: 'already_applied' }, 'the id decides, not the data')
})

t.test('the decider is pure: the same command on the same state gives the same decision', async (t) => {
  const state = foldKeyStream([factOf(issued)])
  t.same(keyDecider.decide(revoked, state), keyDecider.decide(revoked, state))
  t.same(keyDecider.initialState(), { eventIds: [], record: null })
})
