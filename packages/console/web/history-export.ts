import { canonicalJson } from '@waybill/domain/canonical-json'
import type { History } from './api.js'

const COLUMNS = ['revision', 'type', 'event_id', 'event_date', 'received_at', 'key_id', 'request_id', 'leaf_index', 'hash', 'prev_hash', 'data', 'state_after'] as const

/**
 * The history as CSV (RFC 4180: CRLF lines, fields quoted when they hold a comma, quote or line
 * break), one row per event, data and state as canonical JSON. A field that a spreadsheet would
 * take for a formula (starting with = + - @ or a tab) is prefixed with an apostrophe, the usual
 * guard against formula injection: the data is courier-supplied.
 */
export function historyCsv(history: History): string {
  const rows = history.events.map((event) => COLUMNS.map((column) => {
    const value = event[column]
    if (value === null) return ''
    return typeof value === 'object' ? canonicalJson(value) : String(value)
  }))
  return [[...COLUMNS], ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n'
}

function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** Offers `text` as a file download, made in the page: the key never travels in a download URL. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
