import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  eventIdFor, orderDecider, SCHEMA_VERSION, streamNameFor, type ImageRef, type OrderCommand, type WireEvent,
} from '@waybill/domain'
import { handleCommand, openSqliteEventStore, type SqliteEventStore } from '@waybill/event-store'

export interface TestDir {
  readonly path: string
  remove(): Promise<void>
}

export async function tempDir(prefix = 'waybill-projector-'): Promise<TestDir> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

export function openStore(dataDir: string): Promise<SqliteEventStore> {
  return openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
}

/** Small deterministic PRNG (mulberry32), so a failing random run can be replayed by its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const date = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString().replace('.000Z', 'Z')

export const TEST_POD: ImageRef = { sha256: 'a'.repeat(64), media_type: 'image/png', bytes: 68 }

/** A command as the ingress would build it after validation. */
export function command(account: string, event: WireEvent, data: Record<string, unknown>): OrderCommand {
  return { type: event, data, eventId: eventIdFor(account, event, data) } as unknown as OrderCommand
}

function commandFor(account: string, orderId: string, event: WireEvent, step: number, pick: () => number): OrderCommand {
  const common = { order_id: orderId, event_date: date(step) }
  const status = pick() < 0.5 ? 'pending' : 'in_progress'
  switch (event) {
    case 'ORDER_ADD':
      return command(account, event, {
        ...common, customer: `cust-${Math.floor(pick() * 5)}`, location: `loc-${Math.floor(pick() * 3)}`,
        status, address: `${step} Main St`, delivery_date: date(step + 1000),
      })
    case 'ORDER_UPDATE':
      return command(account, event, { ...common, status, address: `${step} Side St`, delivery_date: date(step + 2000) })
    case 'ORDER_COMPLETE':
      return command(account, event, {
        ...common, address: `${step} Last St`, delivery_date: date(step), recipient: 'R. Cipient', pod: TEST_POD,
        ...(pick() < 0.5 ? { signature: { ...TEST_POD, sha256: 'b'.repeat(64) } } : {}),
      })
    case 'ORDER_CANCELED':
      return command(account, event, { ...common, reason: 'customer asked' })
  }
}

/** Sends one command through the real command handler and decider, as the ingress does. */
export async function send(store: SqliteEventStore, account: string, cmd: OrderCommand): Promise<string> {
  const result = await handleCommand(store, streamNameFor(account, cmd.data.order_id), orderDecider, cmd, {
    metadata: { received_at: new Date().toISOString(), key_id: 'test-key', request_id: 'test', schema_version: SCHEMA_VERSION },
  })
  return result.outcome === 'rejected' ? result.error : result.outcome
}

/**
 * Random traffic over `orders` order ids in two accounts: adds, updates, completions, cancels,
 * including ones the decider rejects (locked, not found, conflict), which append nothing.
 */
export async function randomTraffic(store: SqliteEventStore, options: { seed: number; steps: number; orders: number }): Promise<Record<string, number>> {
  const pick = random(options.seed)
  const outcomes: Record<string, number> = {}
  const events: WireEvent[] = ['ORDER_ADD', 'ORDER_ADD', 'ORDER_UPDATE', 'ORDER_UPDATE', 'ORDER_UPDATE', 'ORDER_COMPLETE', 'ORDER_CANCELED']
  for (let step = 0; step < options.steps; step += 1) {
    const account = pick() < 0.8 ? 'acme' : 'globex'
    const orderId = `o-${Math.floor(pick() * options.orders)}`
    const event = events[Math.floor(pick() * events.length)] as WireEvent
    const outcome = await send(store, account, commandFor(account, orderId, event, step, pick))
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  }
  return outcomes
}
