import type { Decision } from '@waybill/domain'
import { issueRejection } from './issue-rules.js'
import type { EndGrace, IssueKey, KeyCommand, LinkReplacement, RecordUse, RevokeKey, UpdateKey } from './key-commands.js'
import type { KeyErrorCode } from './key-errors.js'
import type { KeyEvent } from './key-events.js'
import type { KeyRecord, KeyStreamState } from './key-state.js'
import { expiryRejection, graceRejection, isBefore, withinUseInterval } from './key-times.js'

/** What the key decider answers: events to append, an exact retry, or a refusal with its code. */
export type KeyDecision = Decision<KeyEvent, KeyErrorCode>

const alreadyApplied: KeyDecision = { outcome: 'already_applied' }

function rejected(error: KeyErrorCode): KeyDecision {
  return { outcome: 'rejected', error }
}

/**
 * The key lifecycle's rules. An exact retry (its event id is already in the stream) is
 * recognised first and answers its original success; then a key is issued once, revoked only
 * while active, and linked to its replacement only once revoked, so that a rotation that stops
 * half-way leaves a revoked key, never a usable one. Times are in the commands: the decider reads
 * no clock, and compares only the times it is given.
 */
export function decide(command: KeyCommand, state: KeyStreamState): KeyDecision {
  if (state.eventIds.includes(command.eventId)) return alreadyApplied
  switch (command.type) {
    case 'IssueKey':
      return decideIssue(command, state.record)
    case 'RevokeKey':
      return decideRevoke(command, state.record)
    case 'LinkReplacement':
      return decideLink(command, state.record)
    case 'UpdateKey':
      return decideUpdate(command, state.record)
    case 'RecordUse':
      return decideUse(command, state.record)
    case 'EndGrace':
      return decideEndGrace(command, state.record)
  }
}

const unique = (scopes: KeyRecord['scopes']): KeyRecord['scopes'] => [...new Set(scopes)]

function decideIssue(command: IssueKey, record: KeyRecord | null): KeyDecision {
  const broken = issueRejection(command.data) ?? expiryOf(command.data.expires_at, command.data.issued_at)
  if (broken !== null) return rejected(broken)
  if (record !== null) return rejected('key_exists')
  // A scope named twice is stored once: the record lists what the key may do, not how it was asked.
  const data = { ...command.data, scopes: unique(command.data.scopes) }
  return { outcome: 'append', events: [{ type: 'KeyIssued', data, id: command.eventId }] }
}

function expiryOf(expiresAt: string | null | undefined, at: string): 'invalid_expiry' | null {
  return expiresAt === undefined || expiresAt === null ? null : expiryRejection(expiresAt, at)
}

/** The refusal for a command that needs an active key, or null when the key is active. */
function notActive(record: KeyRecord): KeyDecision | null {
  if (record.state === 'revoked') return rejected('key_revoked')
  if (record.state === 'rotated') return rejected('key_rotated')
  return null
}

function decideRevoke(command: RevokeKey, record: KeyRecord | null): KeyDecision {
  const { grace_until: graceUntil, revoked_at: revokedAt } = command.data
  if (graceUntil !== undefined && graceUntil !== null && graceRejection(graceUntil, revokedAt) !== null) return rejected('invalid_grace')
  if (record === null) return rejected('key_unknown')
  return notActive(record) ?? { outcome: 'append', events: [{ type: 'KeyRevoked', data: command.data, id: command.eventId }] }
}

function decideLink(command: LinkReplacement, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  if (record.state === 'active') return rejected('key_active')
  if (record.state === 'rotated') return rejected('key_rotated')
  return { outcome: 'append', events: [{ type: 'KeyRotated', data: command.data, id: command.eventId }] }
}

/**
 * An update states what changes; the event holds every setting afterwards, checked by the same
 * rules as an issue (a key of one account cannot gain orders:audit, an auditor key cannot gain a
 * write scope). Asking for what the key already has appends nothing.
 */
function decideUpdate(command: UpdateKey, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  const refusal = notActive(record)
  if (refusal !== null) return refusal
  const { data } = command
  const scopes = unique(data.scopes ?? record.scopes)
  const label = data.label !== undefined ? data.label : record.label
  const broken = issueRejection({ account: record.account, test: record.test, scopes, label }) ?? expiryOf(data.expires_at, data.updated_at)
  if (broken !== null) return rejected(broken)
  const expiresAt = data.expires_at !== undefined ? data.expires_at : record.expiresAt
  const sameScopes = scopes.length === record.scopes.length && scopes.every((scope) => record.scopes.includes(scope))
  if (sameScopes && label === record.label && expiresAt === record.expiresAt) return alreadyApplied
  return {
    outcome: 'append',
    events: [{ type: 'KeyUpdated', data: { key_id: data.key_id, scopes, label, expires_at: expiresAt, updated_at: data.updated_at }, id: command.eventId }],
  }
}

/**
 * A use is recorded for any key that exists, whatever its state (a key in its rotation's grace is
 * the one whose use the operator most wants to see), and at most once a minute: a use within a
 * minute of the last recorded one is already told by it, so nothing is appended.
 */
function decideUse(command: RecordUse, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  if (record.lastUsedAt !== null && withinUseInterval(record.lastUsedAt, command.data.used_at)) return alreadyApplied
  return { outcome: 'append', events: [{ type: 'KeyUsed', data: command.data, id: command.eventId }] }
}

/** Only a key still in its grace can have it cut short. */
function decideEndGrace(command: EndGrace, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  if (record.state === 'active' || record.graceUntil === null || !isBefore(command.data.ended_at, record.graceUntil)) {
    return rejected('no_grace')
  }
  return { outcome: 'append', events: [{ type: 'KeyGraceEnded', data: command.data, id: command.eventId }] }
}
