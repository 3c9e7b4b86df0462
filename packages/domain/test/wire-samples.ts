import type { WireEvent } from '../src/commands.js'

/** Smallest byte strings that carry each media type's magic signature, plus a little payload. */
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46])
export const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d])
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')])

export function dataUrl(mediaType: string, bytes: Buffer): string {
  return `data:${mediaType};base64,${bytes.toString('base64')}`
}

export const PAYLOADS: Record<WireEvent, Record<string, string>> = {
  ORDER_ADD: {
    order_id: 'A-1001',
    customer: 'C-7',
    location: 'L-3',
    status: 'pending',
    address: '1 Quay Street',
    delivery_date: '2025-03-01T10:00:00Z',
  },
  ORDER_UPDATE: { order_id: 'A-1001', status: 'in_progress', address: '2 Quay Street', delivery_date: '2025-03-02T11:00:00Z' },
  ORDER_COMPLETE: {
    order_id: 'A-1001',
    address: '2 Quay Street',
    delivery_date: '2025-03-02T11:30:00.250Z',
    pod: dataUrl('image/jpeg', JPEG),
    recipient: 'R. Doe',
    signature: dataUrl('image/png', PNG),
  },
  ORDER_CANCELED: { order_id: 'A-1001', reason: 'customer moved' },
}

/** The fields each event requires (docs/contract.md#event-payloads). */
export const REQUIRED: Record<WireEvent, readonly string[]> = {
  ORDER_ADD: ['order_id', 'customer', 'location', 'status', 'address', 'delivery_date'],
  ORDER_UPDATE: ['order_id', 'status', 'address', 'delivery_date'],
  ORDER_COMPLETE: ['order_id', 'address', 'delivery_date', 'pod', 'recipient'],
  ORDER_CANCELED: ['order_id', 'reason'],
}

/** A valid body of this event, with payload fields replaced or (undefined) removed. */
export function body(event: WireEvent, payload: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  const merged = defined({ ...PAYLOADS[event], ...payload })
  return defined({ event, event_date: '2025-02-27T08:00:00Z', event_payload: merged, ...envelope })
}

/** The members that are not undefined, in their order. */
function defined(members: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined))
}
