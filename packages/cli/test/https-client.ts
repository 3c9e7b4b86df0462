import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Agent, request } from 'undici'

/** A tiny real PNG, for completions' proof of delivery. */
export const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

export interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

export interface Client {
  readonly key: string
  /** POST /v1/deliveries with a JSON body; rejects when no answer came (connection refused or cut). */
  post(body: unknown): Promise<Answer>
  get(path: string, key?: string | null): Promise<Answer>
  close(): Promise<void>
}

/** An HTTPS client for a server whose data dir is `dataDir` (trusts its self-signed certificate, uses its test key). */
export async function clientFor(baseUrl: string, dataDir: string, options: { connections?: number } = {}): Promise<Client> {
  const ca = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8')
  const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  const agent = new Agent({ connect: { ca }, connections: options.connections ?? 32, headersTimeout: 20_000, bodyTimeout: 20_000 })
  const answer = async (response: Awaited<ReturnType<typeof request>>): Promise<Answer> =>
    ({ status: response.statusCode, headers: response.headers, text: await response.body.text() })
  return {
    key,
    post: async (body) => answer(await request(`${baseUrl}/v1/deliveries`, {
      method: 'POST', dispatcher: agent, body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'service-api-key': key },
    })),
    get: async (path, k) => answer(await request(`${baseUrl}${path}`, {
      dispatcher: agent, headers: k === null ? {} : { 'service-api-key': k ?? key },
    })),
    close: () => agent.close(),
  }
}

export function addBody(orderId: string) {
  return {
    event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z',
    event_payload: { order_id: orderId, customer: 'c-1', location: 'l-1', status: 'pending', address: '1 Main St', delivery_date: '2025-03-02T10:00:00Z' },
  }
}

export function completeBody(orderId: string) {
  return {
    event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z',
    event_payload: { order_id: orderId, address: '1 Main St', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann', pod: PNG_DATA_URL },
  }
}
