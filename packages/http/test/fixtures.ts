/** A real 1×1 PNG, JPEG and WebP, so the magic-byte checks see genuine images. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
export const JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=', 'base64')
export const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64')

export function dataUrl(mediaType: string, bytes: Buffer): string {
  return `data:${mediaType};base64,${bytes.toString('base64')}`
}

let counter = 0
/** An order id no other test uses. */
export function orderId(prefix = 'o'): string {
  counter += 1
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`
}

const EVENT_DATE = '2025-03-01T10:00:00Z'

export function addBody(id: string, overrides: Record<string, unknown> = {}) {
  return {
    event: 'ORDER_ADD', event_date: EVENT_DATE,
    event_payload: { order_id: id, customer: 'c-1', location: 'l-1', status: 'pending', address: '1 Main St', delivery_date: '2025-03-02T10:00:00Z', ...overrides },
  }
}
export function updateBody(id: string, overrides: Record<string, unknown> = {}) {
  return {
    event: 'ORDER_UPDATE', event_date: '2025-03-01T11:00:00Z',
    event_payload: { order_id: id, status: 'in_progress', address: '2 Main St', delivery_date: '2025-03-03T10:00:00Z', ...overrides },
  }
}
export function completeBody(id: string, overrides: Record<string, unknown> = {}) {
  return {
    event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z',
    event_payload: { order_id: id, address: '2 Main St', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann', pod: dataUrl('image/png', PNG), signature: dataUrl('image/jpeg', JPEG), ...overrides },
  }
}
export function cancelBody(id: string, overrides: Record<string, unknown> = {}) {
  return {
    event: 'ORDER_CANCELED', event_date: '2025-03-01T12:30:00Z',
    event_payload: { order_id: id, reason: 'customer moved', ...overrides },
  }
}
