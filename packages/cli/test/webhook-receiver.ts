import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** One request the receiver got: its headers, its body, whether the reference library verified it, what it answered. */
interface Received {
  readonly at: number
  readonly webhookId: string
  readonly body: string
  /** The verified message; null when the library refused the signature. */
  readonly message: { type: string; data: { account: string; order_id: string; event_id: string; revision: number } } | null
  readonly status: number
}

export interface Receiver {
  readonly url: string
  readonly requests: Received[]
  /** The endpoint's secret, once `waybill webhooks add` has printed it. */
  secret: string
  /** What it answers the n-th request (from 0). */
  answer: (n: number) => number
  close(): Promise<void>
}

/**
 * A receiver on a loopback port, as an operator's system would run one: every request verified
 * with the Standard Webhooks reference library (`standardwebhooks`), never with Waybill's code.
 */
export async function startReceiver(answer: (n: number) => number): Promise<Receiver> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
      let message: Received['message'] = null
      try {
        message = new Webhook(receiver.secret).verify(body, headers) as Received['message']
      } catch {
        // Refused: counted by the test.
      }
      const status = receiver.answer(receiver.requests.length)
      receiver.requests.push({ at: Date.now(), webhookId: headers['webhook-id'] ?? '', body, message, status })
      response.writeHead(status).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/waybill`,
    requests: [],
    secret: 'whsec_AAAA',
    answer,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
  return receiver
}

/** Resolves once `test` holds (checked every 25 ms); rejects after `timeoutMs` saying what was awaited. */
export async function eventually(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
