import { request } from 'node:https'
import { crc32, deflateSync } from 'node:zlib'

// `waybill` itself (keys, serve, audit) runs in the test's process through `@waybill/cli/testing`;
// these are what the console's test adds: a courier's POST and images to send.

/** POST /v1/deliveries over real HTTPS, trusting the server's own certificate. */
export function post(url: string, ca: string, key: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/deliveries`, { method: 'POST', ca, headers: { 'content-type': 'application/json', 'service-api-key': key } }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

/** A real PNG of `width`×`height` (8-bit RGB) with a pattern from `seed`, as a Data URL. */
export function pngDataUrl(width: number, height: number, seed: number): string {
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) {
      const on = ((x >> 3) + (y >> 3) + seed) % 2 === 0
      row.set(on ? [22, 50, 79] : [230, 240, 250 - seed * 40], 1 + x * 3)
    }
    rows.push(row)
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0)),
  ])
  return `data:image/png;base64,${png.toString('base64')}`
}
