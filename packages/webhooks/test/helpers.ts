import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import {
  eventIdFor, orderDecider, streamNameFor, type ImageRef, type OrderCommand, type WireEvent,
} from '@waybill/domain'
import { handleCommand, openSqliteEventStore, type SqliteEventStore, type StreamStore } from '@waybill/event-store'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A temporary data dir with a real SQLite event store in it, both gone after the test. */
export async function storeDir(t: Teardown): Promise<{ dir: string; store: SqliteEventStore }> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-webhooks-'))
  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), writer: 'inline' })
  t.teardown(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })
  return { dir, store }
}

export const TEST_POD: ImageRef = { sha256: 'a'.repeat(64), media_type: 'image/png', bytes: 68 }

/** The payload of each wire event for one order, as the ingress validates it. */
export function payload(event: WireEvent, orderId: string, n = 0): Record<string, unknown> {
  const date = new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString().replace('.000Z', 'Z')
  switch (event) {
    case 'ORDER_ADD':
      return { order_id: orderId, event_date: date, customer: 'c-1', location: 'l-1', status: 'pending', address: '1 Main St', delivery_date: date }
    case 'ORDER_UPDATE':
      return { order_id: orderId, event_date: date, status: 'in_progress', address: `${n} Side St`, delivery_date: date }
    case 'ORDER_COMPLETE':
      return { order_id: orderId, event_date: date, address: '2 Side St', delivery_date: date, recipient: 'R. Cipient', pod: TEST_POD }
    case 'ORDER_CANCELED':
      return { order_id: orderId, event_date: date, reason: 'customer asked' }
  }
}

/**
 * The subject keys of a log of version-1 events (personal fields in plain form), which open
 * without a key: the deliverer's messages from sealed events are tested through `waybill serve`
 * (cli/test/webhooks*.test.ts) and in message/webhook-message.test.ts.
 */
export const PLAIN_KEYS = { get: (): null => null }

/** Sends one event through the real command handler and decider, as the first release stored them (version 1, plain); answers its id. */
export async function send(store: StreamStore, account: string, event: WireEvent, orderId: string, n = 0): Promise<string> {
  const data = payload(event, orderId, n)
  const command = { type: event, data, eventId: eventIdFor(account, event, data) } as unknown as OrderCommand
  const result = await handleCommand(store, streamNameFor(account, orderId), orderDecider, command, {
    metadata: { received_at: new Date().toISOString(), key_id: 'test-key', request_id: 'test', schema_version: 1 },
  })
  if (result.outcome !== 'appended') throw new Error(`${event} ${orderId}: ${result.outcome}`)
  return command.eventId
}

/** Resolves once `test` holds (checked every 20 ms), or rejects after `timeoutMs`. */
export async function eventually(what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One request a receiver got, as the Standard Webhooks reference library judged it. */
export interface Received {
  readonly headers: Record<string, string>
  readonly body: string
  /** The verified payload; null when no secret the receiver holds verifies it. */
  readonly message: { type: string; data: { order_id: string; event_id: string; revision: number; account: string } } | null
  /** What the receiver answered. */
  readonly status: number | 'hang'
}

/** How a receiver answers its n-th request (from 0): a status (with headers), or never. */
export type Answer = (n: number, request: Omit<Received, 'status'>) => number | 'hang' | { status: number; headers?: Record<string, string>; body?: string }

export interface Receiver {
  readonly url: string
  readonly requests: Received[]
  /** The secrets it verifies with (any of them may match). */
  secrets: string[]
  answer: Answer
  /** Resolves once `test` holds for the requests so far (checked after each), or rejects after `timeoutMs`. */
  until(test: (requests: readonly Received[]) => boolean, timeoutMs?: number): Promise<void>
}

/**
 * A real receiver on a loopback port (plain HTTP, which endpoints may use on loopback): every
 * request verified with `standardwebhooks`, never with Waybill's own code.
 */
export async function startReceiver(t: Teardown, answer: Answer = () => 204): Promise<Receiver> {
  const waiters = new Set<() => void>()
  const held: ServerResponse[] = []
  const receiver: Receiver = {
    url: '',
    requests: [],
    secrets: [],
    answer,
    until: (test, timeoutMs = 10_000) => new Promise((resolve, reject) => {
      const check = (): void => {
        if (!test(receiver.requests)) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`the receiver's requests did not get there within ${timeoutMs} ms (${receiver.requests.length} so far)`))
      }, timeoutMs)
      waiters.add(check)
      check()
    }),
  }
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
      const got = { headers, body, message: verified(receiver.secrets, body, headers) }
      const answered = receiver.answer(receiver.requests.length, got)
      const reply = typeof answered === 'object' ? answered : answered === 'hang' ? 'hang' : { status: answered }
      receiver.requests.push({ ...got, status: reply === 'hang' ? 'hang' : reply.status })
      for (const waiter of [...waiters]) waiter()
      if (reply === 'hang') held.push(response)
      else response.writeHead(reply.status, reply.headers).end(reply.body)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    for (const response of held) response.destroy()
    server.closeAllConnections()
    server.close()
  })
  return Object.assign(receiver, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })
}

function verified(secrets: readonly string[], body: string, headers: Record<string, string>): Received['message'] {
  for (const secret of secrets) {
    try {
      return new Webhook(secret).verify(body, headers) as Received['message']
    } catch {
      // Another secret may verify it.
    }
  }
  return null
}
