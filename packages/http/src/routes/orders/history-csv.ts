import { canonicalJson } from '@waybill/domain'

const CSV_COLUMNS = [
  'revision', 'event_id', 'stream', 'type', 'event_date', 'received_at', 'key_id', 'request_id', 'leaf_index', 'hash', 'prev_hash',
  'erased', 'data', 'fields', 'state_after',
] as const

type CsvRow = { readonly [Column in (typeof CSV_COLUMNS)[number]]: unknown }

/*
 * The history as CSV (RFC 4180): a header, then one row per event; objects (data, fields, state_after)
 * as canonical JSON in one cell, nulls as empty cells, and, on the last page, the chain verdict
 * in a last line of its own so that a spreadsheet shows it under the events. A cell a spreadsheet
 * would take for a formula (starting with = + - @, a tab or a carriage return) is prefixed with
 * an apostrophe, the usual guard against formula injection: much of a history is
 * courier-supplied. The parts are written separately so that a page's rows are written a slice
 * at a time, as its events are read.
 */

/** The CSV history's first line, CRLF-terminated. */
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`

/** One CSV line per event, each CRLF-terminated. */
export function csvRows(events: readonly CsvRow[]): string {
  let rows = ''
  for (const event of events) rows += `${CSV_COLUMNS.map((column) => cell(event[column])).join(',')}\r\n`
  return rows
}

/** The last page's last line: whether the whole stream's hash chain holds. */
export function csvVerdict(chain: { ok: boolean; revision?: number; reason?: string }): string {
  return `${cell(chain.ok ? 'chain: ok' : `chain: BROKEN at revision ${chain.revision ?? '?'}: ${chain.reason ?? ''}`)}\r\n`
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Numbers and booleans as JSON writes them; objects as canonical JSON.
  const written = typeof value === 'string' ? value : canonicalJson(value)
  const text = /^[=+\-@\t\r]/.test(written) ? `'${written}` : written
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
