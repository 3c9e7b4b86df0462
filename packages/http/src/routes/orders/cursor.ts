import { createHash } from 'node:crypto'
import { codePointsOver, isAccountId, LIMITS, WaybillError } from '@waybill/domain'
import type { AuditPosition, ListFilters } from '@waybill/projector'

const VERSION = 2

/**
 * Opaque keyset cursor for GET /v1/orders: the last order_id of the page and a digest of the
 * filters it was issued for, base64url-wrapped JSON, so clients do not build it themselves and
 * the form can change without breaking them.
 */
export function encodeCursor(lastOrderId: string, filters: ListFilters): string {
  return serialize(lastOrderId, filtersDigest(filters))
}

/** The one text form of a cursor: decoding demands exactly this back. */
function serialize(after: string, filters: string): string {
  return Buffer.from(JSON.stringify({ v: VERSION, after, filters })).toString('base64url')
}

/**
 * The order_id to page after, if `cursor` is one this API wrote for these `filters`. Not signed,
 * on purpose: every instance must accept every other's cursors without a shared secret, and a
 * hand-made cursor of the right form for the same filters is only a position in order_id order
 * among the caller's own orders, which shows nothing the caller could not list anyway.
 */
export function decodeCursor(cursor: string, filters: ListFilters): string {
  const value = parse(cursor)
  const after = value?.after
  // Encoding what was read again and requiring the very same text rejects everything this API
  // never writes: other or extra members, another order, spacing, padding, non-base64url bytes.
  if (value === null || value.v !== VERSION || typeof after !== 'string' || after === '' ||
    codePointsOver(after, LIMITS.orderIdMaxLength) || typeof value.filters !== 'string' ||
    serialize(after, value.filters) !== cursor) {
    throw new WaybillError('bad_request', 'cursor: not a cursor this API returned')
  }
  if (value.filters !== filtersDigest(filters)) {
    throw new WaybillError('bad_request', 'cursor: not a cursor this API returned for these filters')
  }
  return after
}

function parse(cursor: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
  } catch {
    return null
  }
}

/**
 * A short digest of the filter set, not a secret: it only makes a cursor from one list useless
 * with another. Values in a JSON array, so no two filter sets run together into one text; 96
 * bits, so two filter sets meet by chance practically never. `limit` is left out: a client may
 * change the page size between pages.
 */
function filtersDigest(filters: ListFilters, more: ReadonlyArray<string | null> = []): string {
  const canonical = JSON.stringify([filters.status ?? null, filters.customer ?? null, filters.location ?? null, filters.updatedSince ?? null, ...more])
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
}

/** The auditor's list filters: those of every list, and the one account it may be narrowed to. */
export interface AuditFilters extends ListFilters {
  readonly account?: string
}

/**
 * The auditor's cursor: the same wrapping, with the account of the last order too (the auditor's
 * list pages on account, order_id), bound to the auditor's filters. Its form differs from a
 * tenant cursor, so neither list takes the other's.
 */
export function encodeAuditCursor(last: AuditPosition, filters: AuditFilters): string {
  return serializeAudit(last.account, last.orderId, auditDigest(filters))
}

function serializeAudit(account: string, after: string, filters: string): string {
  return Buffer.from(JSON.stringify({ v: VERSION, account, after, filters })).toString('base64url')
}

/** Where to page on from, if `cursor` is one this API wrote for an auditor's list with these `filters`. */
export function decodeAuditCursor(cursor: string, filters: AuditFilters): AuditPosition {
  const value = parse(cursor)
  const account = value?.account
  const after = value?.after
  if (value === null || value.v !== VERSION || typeof account !== 'string' || !isAccountId(account) || typeof after !== 'string' ||
    after === '' || codePointsOver(after, LIMITS.orderIdMaxLength) || typeof value.filters !== 'string' ||
    serializeAudit(account, after, value.filters) !== cursor) {
    throw new WaybillError('bad_request', 'cursor: not a cursor this API returned')
  }
  if (value.filters !== auditDigest(filters)) {
    throw new WaybillError('bad_request', 'cursor: not a cursor this API returned for these filters')
  }
  return { account, orderId: after }
}

/** `filtersDigest` of the auditor's filters, marked so that it never equals a tenant list's. */
function auditDigest(filters: AuditFilters): string {
  return filtersDigest(filters, ['audit', filters.account ?? null])
}
