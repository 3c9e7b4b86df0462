import type { Decision } from '@waybill/domain'
import { issueRejection } from './issue-rules.js'
import type { IssueKey, KeyCommand, LinkReplacement, RevokeKey } from './key-commands.js'
import type { KeyErrorCode } from './key-errors.js'
import type { KeyEvent } from './key-events.js'
import type { KeyRecord, KeyStreamState } from './key-state.js'

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
 * half-way leaves a revoked key, never a usable one.
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
  }
}

function decideIssue(command: IssueKey, record: KeyRecord | null): KeyDecision {
  const broken = issueRejection(command.data)
  if (broken !== null) return rejected(broken)
  if (record !== null) return rejected('key_exists')
  // A scope named twice is stored once: the record lists what the key may do, not how it was asked.
  const data = { ...command.data, scopes: [...new Set(command.data.scopes)] }
  return { outcome: 'append', events: [{ type: 'KeyIssued', data, id: command.eventId }] }
}

function decideRevoke(command: RevokeKey, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  if (record.state === 'revoked') return rejected('key_revoked')
  if (record.state === 'rotated') return rejected('key_rotated')
  return { outcome: 'append', events: [{ type: 'KeyRevoked', data: command.data, id: command.eventId }] }
}

function decideLink(command: LinkReplacement, record: KeyRecord | null): KeyDecision {
  if (record === null) return rejected('key_unknown')
  if (record.state === 'active') return rejected('key_active')
  if (record.state === 'rotated') return rejected('key_rotated')
  return { outcome: 'append', events: [{ type: 'KeyRotated', data: command.data, id: command.eventId }] }
}
