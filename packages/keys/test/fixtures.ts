import type { IssueKey, KeyCommand, LinkReplacement, RevokeKey } from '../src/key-commands.js'
import type { KeyIssuedData, KeyRevokedData, KeyRotatedData, StoredKeyEvent } from '../src/key-events.js'

export const KEY_ID = 'AbCdEfGh1234'
export const REPLACEMENT_ID = 'ZyXwVu987654'
const ISSUED_AT = '2025-03-01T08:00:00.000Z'
export const REVOKED_AT = '2025-03-02T09:00:00.000Z'
const ROTATED_AT = '2025-03-02T09:00:01.000Z'

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

/** The fact a command stands for, as the stream would hold it. */
export function factOf(command: KeyCommand): StoredKeyEvent {
  switch (command.type) {
    case 'IssueKey':
      return { type: 'KeyIssued', data: command.data, id: command.eventId }
    case 'RevokeKey':
      return { type: 'KeyRevoked', data: command.data, id: command.eventId }
    case 'LinkReplacement':
      return { type: 'KeyRotated', data: command.data, id: command.eventId }
  }
}
