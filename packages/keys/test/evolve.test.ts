import t from 'tap'
import { evolve } from '../src/evolve.js'
import type { StoredKeyEvent } from '../src/key-events.js'
import { foldKeyStream } from '../src/key-decider.js'
import { initialKeyState } from '../src/key-state.js'
import {
  endGrace, factOf, GRACE, GRACE_UNTIL, issueKey, KEY_ID, linkReplacement, recordUse, REPLACEMENT_ID, revokeKey, updateKey,
} from './fixtures.js'

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

t.test('a key issued before labels and expiry existed has neither', async (t) => {
  t.match(foldKeyStream([issued]).record, { label: null, expiresAt: null, graceUntil: null, lastUsedAt: null })
})

t.test('a KeyUpdated on a key that is not active changes nothing: a revoked key gains no scope', async (t) => {
  const widen = factOf(updateKey({ scopes: ['orders:add', 'orders:cancel'], label: 'x' }))
  for (const history of [[issued, revoked], [issued, revoked, rotated]]) {
    const before = foldKeyStream(history)
    t.same(evolve(before, widen).record, before.record)
  }
  t.same(foldKeyStream([widen]).record, null)
})

t.test('KeyUsed keeps the latest use, whatever order instances stored them in', async (t) => {
  const at10 = factOf(recordUse({ used_at: '2025-03-01T10:00:00.000Z' }, 'use-10'))
  const at12 = factOf(recordUse({ used_at: '2025-03-01T12:00:00.000Z' }, 'use-12'))
  t.equal(foldKeyStream([issued, at10, at12]).record?.lastUsedAt, '2025-03-01T12:00:00.000Z')
  t.equal(foldKeyStream([issued, at12, at10]).record?.lastUsedAt, '2025-03-01T12:00:00.000Z')
  t.same(foldKeyStream([at10]).record, null, 'a use of no key leaves no key')
})

t.test('KeyGraceEnded only ever shortens a grace', async (t) => {
  const graced = factOf(revokeKey(GRACE))
  const later = factOf(endGrace({ ended_at: '2025-03-04T00:00:00.000Z' }, 'end-later'))
  t.equal(foldKeyStream([issued, graced, later]).record?.graceUntil, GRACE_UNTIL, 'an end after the grace changes nothing')
  t.match(foldKeyStream([issued, revoked, later]).record, { graceUntil: null, reason: 'leaked' }, 'no grace, nothing to end')
  t.match(foldKeyStream([issued, later]).record, { state: 'active', graceUntil: null })
  t.same(foldKeyStream([later]).record, null)
})

t.test('a KeyRevoked with a grace on a key already revoked or rotated gives it none', async (t) => {
  const lateGrace = factOf(revokeKey({ grace_until: GRACE_UNTIL }, 'event-late-grace'))
  t.match(foldKeyStream([issued, revoked, lateGrace]).record, { graceUntil: null })
  t.match(foldKeyStream([issued, revoked, rotated, lateGrace]).record, { graceUntil: null, state: 'rotated' })
})
