import { request } from 'node:https'

/** POSTs `body` (sent as it is) to `<url>/v1/deliveries` over HTTPS with `key`; the status and the body's text. */
export function postDelivery(url: string, ca: string, key: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/deliveries`, {
      method: 'POST', ca, headers: { 'content-type': 'application/json', 'service-api-key': key },
    }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => { text += chunk.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
