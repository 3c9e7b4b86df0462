import { WaybillError } from '@waybill/domain'

/**
 * Opaque keyset cursor for GET /v1/orders: the last order_id of the page, base64url-wrapped so
 * clients do not build it themselves and the form can change without breaking them.
 */
export function encodeCursor(lastOrderId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after: lastOrderId })).toString('base64url')
}

export function decodeCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (value !== null && typeof value === 'object' && (value as { v?: unknown }).v === 1) {
      const after = (value as { after?: unknown }).after
      if (typeof after === 'string') return after
    }
  } catch {
    // fall through: any undecodable cursor is the client's error
  }
  throw new WaybillError('bad_request', 'cursor: not a cursor this API returned')
}
