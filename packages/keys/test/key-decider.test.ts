import t from 'tap'
import type { KeyCommand } from '../src/key-commands.js'
import { foldKeyStream, keyDecider } from '../src/key-decider.js'
import {
  endGrace, factOf, GRACE, GRACE_UNTIL, issueKey, linkReplacement, recordUse, REPLACEMENT_ID, REVOKED_AT, revokeKey, updateKey,
} from './fixtures.js'

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
    label: null, expiresAt: null, graceUntil: null, lastUsedAt: null,
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

t.test('IssueKey with a label and an expiry → KeyIssued carrying both', async (t) => {
  const labelled = issueKey({ label: 'courier app (prod) – é', expires_at: '2025-06-01T00:00:00.000Z' })
  t.same(given().when(labelled), appended(labelled))
  t.match(foldKeyStream([factOf(labelled)]).record, { label: 'courier app (prod) – é', expiresAt: '2025-06-01T00:00:00.000Z' })
  const labelled100 = issueKey({ label: '😀'.repeat(100) })
  t.same(given().when(labelled100), appended(labelled100), 'a label of 100 characters (code points)')
})

t.test('IssueKey with a bad label or expiry → invalid_label / invalid_expiry, after the other rules', async (t) => {
  for (const label of ['', '   ', 'x'.repeat(101), 'tab\there', 'line\nbreak', '\ud800 lone']) {
    t.same(given().when(issueKey({ label })), rejected('invalid_label'), JSON.stringify(label))
  }
  for (const expires of ['2025-03-01T08:00:00.000Z', '2025-02-28T00:00:00.000Z', 'tomorrow', '2025-02-30T00:00:00Z']) {
    t.same(given().when(issueKey({ expires_at: expires })), rejected('invalid_expiry'), expires)
  }
  t.same(given().when(issueKey({ scopes: [], label: '' })), rejected('no_scopes'))
  t.same(given().when(issueKey({ label: '', expires_at: 'tomorrow' })), rejected('invalid_label'))
})

t.test('the * account: only auditor keys, which never write; orders:audit only on them', async (t) => {
  const auditor = issueKey({ account: '*', scopes: ['orders:audit'] })
  t.same(given().when(auditor), appended(auditor))
  const reading = issueKey({ account: '*', scopes: ['orders:audit', 'orders:read'] })
  t.same(given().when(reading), appended(reading), 'orders:read beside it changes nothing it may do')
  for (const scopes of [['orders:read'], ['orders:audit', 'orders:add'], ['orders:cancel']] as const) {
    t.same(given().when(issueKey({ account: '*', scopes })), rejected('wildcard_not_auditor'), scopes.join(','))
  }
  t.same(given().when(issueKey({ scopes: ['orders:audit'] })), rejected('audit_outside_wildcard'))
  t.same(given().when(issueKey({ scopes: ['orders:read', 'orders:audit'] })), rejected('audit_outside_wildcard'))
  t.same(given().when(issueKey({ account: '*', scopes: ['orders:audit'], test: true })), rejected('test_key_outside_sandbox'))
  t.same(given().when(issueKey({ account: '**', scopes: ['orders:audit'] })), rejected('invalid_account'))
})

t.test('RevokeKey with a grace → KeyRevoked with grace_until; the grace ends after the revocation, within 30 days', async (t) => {
  const graced = revokeKey(GRACE)
  t.same(given(issued).when(graced), appended(graced))
  t.match(foldKeyStream([issued, graced].map(factOf)).record, { state: 'revoked', revokedAt: REVOKED_AT, graceUntil: GRACE_UNTIL })
  t.match(foldKeyStream([issued, revoked].map(factOf)).record, { graceUntil: null }, 'without one: none')
  t.same(given(issued).when(revokeKey({ grace_until: null })), appended(revokeKey({ grace_until: null })))
  for (const end of [REVOKED_AT, '2025-03-01T09:00:00.000Z', '2025-04-01T09:00:00.001Z', 'soon']) {
    t.same(given(issued).when(revokeKey({ grace_until: end })), rejected('invalid_grace'), end)
  }
  t.same(given(issued).when(revokeKey({ grace_until: '2025-04-01T09:00:00.000Z' })), appended(revokeKey({ grace_until: '2025-04-01T09:00:00.000Z' })), '30 days exactly')
  t.same(given(issued, graced).when(revokeKey({}, 'event-revoke-again')), rejected('key_revoked'), 'a revoked key in its grace is still revoked')
})

t.test('UpdateKey → KeyUpdated with every setting afterwards; the key stays as it was in all else', async (t) => {
  const labelled = issueKey({ label: 'old', expires_at: '2025-06-01T00:00:00.000Z' })
  const scopes = updateKey({ scopes: ['orders:read', 'orders:cancel', 'orders:read'] })
  t.same(given(labelled).when(scopes), {
    outcome: 'append',
    events: [{ type: 'KeyUpdated', id: scopes.eventId, data: {
      key_id: scopes.data.key_id, scopes: ['orders:read', 'orders:cancel'], label: 'old', expires_at: '2025-06-01T00:00:00.000Z', updated_at: scopes.data.updated_at,
    } }],
  })
  const cleared = updateKey({ label: null, expires_at: null })
  t.same(given(labelled).when(cleared), appended(updateKey({ scopes: ['orders:add', 'orders:read'], label: null, expires_at: null })))
  const renamed = updateKey({ label: 'new', expires_at: '2026-01-01T00:00:00.000Z' })
  const stored = updateKey({ scopes: ['orders:add', 'orders:read'], label: 'new', expires_at: '2026-01-01T00:00:00.000Z' })
  t.same(given(labelled).when(renamed), appended(stored))
  const after = foldKeyStream([labelled, stored].map(factOf)).record
  t.match(after, { state: 'active', label: 'new', expiresAt: '2026-01-01T00:00:00.000Z', scopes: ['orders:add', 'orders:read'], hash: labelled.data.hash })
})

t.test('UpdateKey asking for what the key has → already_applied (nothing appended)', async (t) => {
  const labelled = issueKey({ label: 'app' })
  t.same(given(labelled).when(updateKey({ scopes: ['orders:read', 'orders:add'], label: 'app', expires_at: null })), { outcome: 'already_applied' })
  t.same(given(labelled).when(updateKey({})), { outcome: 'already_applied' })
  t.same(given(labelled).when(updateKey({ scopes: ['orders:add'] })).outcome, 'append', 'fewer scopes is a change')
})

t.test('UpdateKey: only an active key, under the issue rules and a future expiry', async (t) => {
  const change = updateKey({ scopes: ['orders:read'] })
  t.same(given().when(change), rejected('key_unknown'))
  t.same(given(issued, revoked).when(change), rejected('key_revoked'))
  t.same(given(issued, revokeKey(GRACE)).when(change), rejected('key_revoked'), 'nor in its grace')
  t.same(given(issued, revoked, linked).when(change), rejected('key_rotated'))
  t.same(given(issued).when(updateKey({ scopes: [] })), rejected('no_scopes'))
  t.same(given(issued).when(updateKey({ scopes: ['orders:read', 'orders:audit'] })), rejected('audit_outside_wildcard'))
  t.same(given(issued).when(updateKey({ label: 'x'.repeat(101) })), rejected('invalid_label'))
  t.same(given(issued).when(updateKey({ expires_at: '2025-03-01T12:00:00.000Z' })), rejected('invalid_expiry'), 'not after the update')
  const auditor = issueKey({ account: '*', scopes: ['orders:audit'] })
  t.same(given(auditor).when(updateKey({ scopes: ['orders:audit', 'orders:add'] })), rejected('wildcard_not_auditor'), 'an auditor key never gains a write scope')
  t.same(given(auditor).when(updateKey({ label: 'audit 2025' })).outcome, 'append')
  const test = issueKey({ account: 'sandbox', test: true })
  t.same(given(test).when(updateKey({ scopes: ['orders:read'] })).outcome, 'append', 'a test key stays a sandbox key')
})

t.test('RecordUse → KeyUsed for any key that exists, at most once a minute', async (t) => {
  const use = recordUse()
  t.same(given().when(use), rejected('key_unknown'))
  t.same(given(issued).when(use), appended(use))
  t.match(foldKeyStream([issued, use].map(factOf)).record, { lastUsedAt: use.data.used_at })
  t.same(given(issued, use).when(recordUse({ used_at: '2025-03-01T10:00:59.999Z' }, 'event-use-2')), { outcome: 'already_applied' })
  t.same(given(issued, use).when(recordUse({ used_at: '2025-03-01T09:59:00.000Z' }, 'event-use-2')), { outcome: 'already_applied' }, 'an older use')
  const minuteLater = recordUse({ used_at: '2025-03-01T10:01:00.000Z' }, 'event-use-2')
  t.same(given(issued, use).when(minuteLater), appended(minuteLater))
  t.same(given(issued, revoked, linked).when(use), appended(use), 'whatever the state: a key in its grace is used too')
  t.same(given(issued, use).when(use), { outcome: 'already_applied' }, 'an exact retry')
})

t.test('EndGrace: only a key still in its grace → KeyGraceEnded, and it ends then', async (t) => {
  const graced = revokeKey(GRACE)
  const end = endGrace()
  t.same(given(issued, graced).when(end), appended(end))
  t.same(given(issued, graced, linked).when(end), appended(end), 'after the replacement is linked too')
  t.match(foldKeyStream([issued, graced, linked, end].map(factOf)).record, {
    state: 'rotated', graceUntil: end.data.ended_at, reason: 'insecure_connection', revokedAt: REVOKED_AT, replacedBy: REPLACEMENT_ID,
  })
  t.same(given().when(end), rejected('key_unknown'))
  t.same(given(issued).when(end), rejected('no_grace'), 'an active key')
  t.same(given(issued, revoked).when(end), rejected('no_grace'), 'revoked at once')
  t.same(given(issued, graced).when(endGrace({ ended_at: GRACE_UNTIL })), rejected('no_grace'), 'its grace is over')
  t.same(given(issued, graced, end).when(endGrace({}, 'event-end-again')), rejected('no_grace'), 'already ended')
  t.same(given(issued, graced, end).when(end), { outcome: 'already_applied' })
})
