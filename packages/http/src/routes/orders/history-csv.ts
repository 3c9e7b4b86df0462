import { canonicalJson } from '@waybill/domain'

const CSV_COLUMNS = [
  'revision', 'event_id', 'stream', 'type', 'event_date', 'received_at', 'key_id', 'request_id', 'leaf_index', 'hash', 'prev_hash',
  'erased', 'data', 'fields', 'state_after',
] as const

type CsvRow = { readonly [Column in (typeof CSV_COLUMNS)[number]]: unknown }

/**
 * The history as CSV (RFC 4180): one row per event, a header first; objects (data, fields, state_after)
 * as canonical JSON in one cell, nulls as empty cells, and, on the last page, the chain verdict
 * in a last line of its own so that a spreadsheet shows it under the events. A cell a spreadsheet would take for
 * a formula (starting with = + - @, a tab or a carriage return) is prefixed with an apostrophe,
 * the usual guard against formula injection: much of a history is courier-supplied.
 */
export function historyCsv(events: readonly CsvRow[], chain: { ok: boolean; revision?: number; reason?: string } | null): string {
  const lines = [CSV_COLUMNS.join(',')]
  for (const event of events) lines.push(CSV_COLUMNS.map((column) => cell(event[column])).join(','))
  if (chain !== null) lines.push(cell(chain.ok ? 'chain: ok' : `chain: BROKEN at revision ${chain.revision ?? '?'}: ${chain.reason ?? ''}`))
  return `${lines.join('\r\n')}\r\n`
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Numbers and booleans as JSON writes them; objects as canonical JSON.
  const written = typeof value === 'string' ? value : canonicalJson(value)
  const text = /^[=+\-@\t\r]/.test(written) ? `'${written}` : written
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
