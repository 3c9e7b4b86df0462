import t from 'tap'
import { evolve } from '../src/evolve.js'
import type { StoredKeyEvent } from '../src/key-events.js'
import { foldKeyStream } from '../src/key-decider.js'
import { initialKeyState } from '../src/key-state.js'
import { factOf, issueKey, KEY_ID, linkReplacement, REPLACEMENT_ID, revokeKey } from './fixtures.js'

const issued = factOf(issueKey())
const revoked = factOf(revokeKey())
const rotated = factOf(linkReplacement())

t.test('every fact records its id, in stream order', async (t) => {
  t.same(initialKeyState(), { eventIds: [], record: null })
  t.same(foldKeyStream([issued, revoked, rotated]).eventIds, [issued.id, revoked.id, rotated.id])
})

t.test('a second KeyIssued never resets a key: a revoked key stays revoked', async (t) => {
  const again = factOf(issueKey({ account: 'other', hash: 'cd'.repeat(32) }, 'event-issue-again'))
  const state = foldKeyStream([issued, revoked, again])
  t.match(state.record, { state: 'revoked', account: 'acme', hash: issueKey().data.hash })
  t.same(state.eventIds, [issued.id, revoked.id, again.id])
})

t.test('revocations and links on a stream without a key leave no key', async (t) => {
  t.same(foldKeyStream([revoked, rotated]), { eventIds: [revoked.id, rotated.id], record: null })
})

t.test('a KeyRevoked on a rotated key, and a second KeyRotated, change nothing but the ids', async (t) => {
  const before = foldKeyStream([issued, revoked, rotated])
  const lateRevoke = factOf(revokeKey({ reason: 'late' }, 'event-revoke-late'))
  const secondLink = factOf(linkReplacement({ replacement_key_id: 'Another12345' }, 'event-link-again'))
  const after = evolve(evolve(before, lateRevoke), secondLink)
  t.same(after.record, before.record)
  t.match(after.record, { state: 'rotated', replacedBy: REPLACEMENT_ID, reason: 'leaked' })
})

t.test('a KeyRotated on an active key leaves it rotated, so it no longer authenticates', async (t) => {
  t.match(foldKeyStream([issued, rotated]).record, { keyId: KEY_ID, state: 'rotated', replacedBy: REPLACEMENT_ID, revokedAt: null })
})

t.test('an event type this package does not know is only counted', async (t) => {
  const foreign = { id: 'event-foreign', type: 'KeyRenamed', data: { key_id: KEY_ID } } as unknown as StoredKeyEvent
  const state = foldKeyStream([issued, foreign])
  t.same(state.record, foldKeyStream([issued]).record)
  t.same(state.eventIds, [issued.id, foreign.id])
})
