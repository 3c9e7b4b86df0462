import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface DeadReceiver {
  /** Where the endpoint points: plain HTTP on loopback, which `waybill webhooks add` takes. */
  readonly url: string
  /** Requests it took in (and never answered). */
  requests(): number
  close(): Promise<void>
}

/**
 * A webhook receiver that takes every connection and request in and never answers: each of the
 * deliverer's attempts runs to its timeout. It runs in the bench's process and does no work.
 */
export async function startDeadReceiver(): Promise<DeadReceiver> {
  const held = new Set<ServerResponse>()
  let requests = 0
  const server = createServer((request, response) => {
    requests += 1
    request.resume()
    held.add(response)
    response.on('close', () => held.delete(response))
  })
  // Node's own request timeout would answer 408 after five minutes: this receiver never answers.
  server.requestTimeout = 0
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: () => requests,
    close: async () => {
      for (const response of held) response.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
