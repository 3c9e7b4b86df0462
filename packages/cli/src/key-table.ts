import { existsSync } from 'node:fs'
import { isUsableAt, replacementKeyPath, type KeyRecord } from '@waybill/keys'

/** One key as `waybill keys list --json` prints it (snake_case, like the stored events). */
export interface KeyRow {
  readonly key_id: string
  readonly account: string
  readonly scopes: readonly string[]
  readonly state: KeyRecord['state']
  readonly test: boolean
  readonly label: string | null
  readonly issued_at: string
  readonly expires_at: string | null
  readonly revoked_at: string | null
  readonly grace_until: string | null
  readonly reason: string | null
  readonly replaces: string | null
  readonly replaced_by: string | null
  readonly last_used_at: string | null
  /** Whether the key authenticates now (active and not expired, or within its grace). */
  readonly usable: boolean
  /** Where a replacement issued because of plain HTTP waits for hand-over. */
  readonly secret_file: string | null
}

export function keyRow(record: KeyRecord, dataDir: string, now: Date): KeyRow {
  const file = replacementKeyPath(dataDir, record.keyId)
  return {
    key_id: record.keyId, account: record.account, scopes: record.scopes, state: record.state, test: record.test,
    label: record.label, issued_at: record.issuedAt, expires_at: record.expiresAt, revoked_at: record.revokedAt,
    grace_until: record.graceUntil, reason: record.reason, replaces: record.replaces, replaced_by: record.replacedBy,
    last_used_at: record.lastUsedAt, usable: isUsableAt(record, now),
    secret_file: record.state === 'active' && existsSync(file) ? file : null,
  }
}

const HEADERS = ['KEY ID', 'STATE', 'KIND', 'ACCOUNT', 'SCOPES', 'LABEL', 'EXPIRES', 'LAST USED', 'NOTES'] as const

/** A time to the minute, as operators read it: `2025-03-01 08:00Z`. */
function minute(time: string | null): string {
  return time === null ? '-' : `${time.slice(0, 10)} ${time.slice(11, 16)}Z`
}

function cells(row: KeyRow): string[] {
  const inGrace = row.grace_until !== null && row.state !== 'active'
  const notes = [
    inGrace ? `${row.usable ? 'works' : 'worked'} until ${minute(row.grace_until)}` : '',
    row.replaces !== null ? `replaces ${row.replaces}` : '',
    row.replaced_by !== null ? `replaced by ${row.replaced_by}` : '',
    row.reason !== null ? `reason ${row.reason}` : '',
    row.secret_file !== null ? `secret in ${row.secret_file}` : '',
  ].filter(Boolean).join('; ')
  // An active key that does not authenticate has expired: refused like a revoked one, but it can be renewed.
  const expired = row.state === 'active' && !row.usable
  return [
    row.key_id, expired ? 'expired' : row.state, row.test ? 'test' : 'live', row.account, row.scopes.join(','),
    row.label ?? '-', row.expires_at === null ? 'never' : minute(row.expires_at), minute(row.last_used_at), notes || '-',
  ]
}

/** The rows under column headers, each column as wide as its widest cell (the last one unpadded). */
export function keyTable(rows: readonly KeyRow[]): string {
  const lines = [[...HEADERS], ...rows.map(cells)]
  const widths = HEADERS.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length)))
  return lines.map((line) => line.map((cell, column) => column === line.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n')
}
