import type { EndGrace, IssueKey, KeyChanges, KeyCommand, LinkReplacement, RecordUse, RevokeKey, UpdateKey } from '../src/key-commands.js'
import type { KeyGraceEndedData, KeyIssuedData, KeyRevokedData, KeyRotatedData, KeyUsedData, StoredKeyEvent } from '../src/key-events.js'

export const KEY_ID = 'AbCdEfGh1234'
export const REPLACEMENT_ID = 'ZyXwVu987654'
const ISSUED_AT = '2025-03-01T08:00:00.000Z'
export const REVOKED_AT = '2025-03-02T09:00:00.000Z'
const ROTATED_AT = '2025-03-02T09:00:01.000Z'
/** A day after REVOKED_AT: the end of the grace `revokeKey(GRACE)` gives. */
export const GRACE_UNTIL = '2025-03-03T09:00:00.000Z'
export const GRACE = { grace_until: GRACE_UNTIL } as const

export function issueKey(data: Partial<KeyIssuedData> = {}, eventId = 'event-issue'): IssueKey {
  return {
    type: 'IssueKey',
    eventId,
    data: {
      key_id: KEY_ID, account: 'acme', scopes: ['orders:add', 'orders:read'], hash: 'ab'.repeat(32), test: false,
      replaces: null, issued_at: ISSUED_AT, ...data,
    },
  }
}

export function revokeKey(data: Partial<KeyRevokedData> = {}, eventId = 'event-revoke'): RevokeKey {
  return { type: 'RevokeKey', eventId, data: { key_id: KEY_ID, reason: 'leaked', revoked_at: REVOKED_AT, ...data } }
}

export function linkReplacement(data: Partial<KeyRotatedData> = {}, eventId = 'event-link'): LinkReplacement {
  return {
    type: 'LinkReplacement',
    eventId,
    data: { key_id: KEY_ID, replacement_key_id: REPLACEMENT_ID, rotated_at: ROTATED_AT, ...data },
  }
}

export function updateKey(data: Partial<KeyChanges> = {}, eventId = 'event-update'): UpdateKey {
  return { type: 'UpdateKey', eventId, data: { key_id: KEY_ID, updated_at: '2025-03-01T12:00:00.000Z', ...data } }
}

export function recordUse(data: Partial<KeyUsedData> = {}, eventId = 'event-use'): RecordUse {
  return { type: 'RecordUse', eventId, data: { key_id: KEY_ID, used_at: '2025-03-01T10:00:00.000Z', ...data } }
}

export function endGrace(data: Partial<KeyGraceEndedData> = {}, eventId = 'event-end-grace'): EndGrace {
  return { type: 'EndGrace', eventId, data: { key_id: KEY_ID, reason: 'insecure_connection', ended_at: '2025-03-02T10:00:00.000Z', ...data } }
}

/**
 * The fact a command stands for, as the stream would hold it. An UpdateKey stands for the
 * KeyUpdated that sets what it names and clears (or empties) what it leaves out.
 */
export function factOf(command: KeyCommand): StoredKeyEvent {
  switch (command.type) {
    case 'IssueKey':
      return { type: 'KeyIssued', data: command.data, id: command.eventId }
    case 'RevokeKey':
      return { type: 'KeyRevoked', data: command.data, id: command.eventId }
    case 'LinkReplacement':
      return { type: 'KeyRotated', data: command.data, id: command.eventId }
    case 'UpdateKey': {
      const { key_id, scopes = [], label = null, expires_at = null, updated_at } = command.data
      return { type: 'KeyUpdated', data: { key_id, scopes, label, expires_at, updated_at }, id: command.eventId }
    }
    case 'RecordUse':
      return { type: 'KeyUsed', data: command.data, id: command.eventId }
    case 'EndGrace':
      return { type: 'KeyGraceEnded', data: command.data, id: command.eventId }
  }
}
