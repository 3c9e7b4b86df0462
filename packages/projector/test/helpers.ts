import { createHash } from 'node:crypto'
import Sqlite from 'better-sqlite3'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  orderDecider, SCHEMA_VERSION, streamNameFor, type DecodedImage, type ImageRef, type ValidDelivery, type WireEvent,
} from '@waybill/domain'
import { handleCommand, openSqliteEventStore, type BlobStore, type SqliteEventStore } from '@waybill/event-store'
import { openSqliteKeyStore, sealDelivery, type SubjectKeyStore } from '@waybill/personal-data'
import type { EventOpener } from '../src/index.js'

export interface TestDir {
  /** The data directory; its subject keys are beside it, at `<path>.subject-keys` (as `waybill` puts them). */
  readonly path: string
  remove(): Promise<void>
}

export async function tempDir(prefix = 'waybill-projector-'): Promise<TestDir> {
  const root = await mkdtemp(join(tmpdir(), prefix))
  const path = join(root, 'data')
  await mkdir(path)
  return { path, remove: () => rm(root, { recursive: true, force: true }) }
}

/** The event store of a data dir, with its subject keys (closed with it). */
export type TestStore = SqliteEventStore & { readonly keys: SubjectKeyStore }

export async function openStore(dataDir: string): Promise<TestStore> {
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
  const close = store.close.bind(store)
  return Object.assign(store, {
    keys,
    close: async () => {
      await close()
      await keys.close()
    },
  })
}

/** A data dir and its store, for one test: closed and removed when it ends. */
export async function storeForTest(t: { teardown(fn: () => unknown): void }): Promise<{ dir: TestDir; store: TestStore }> {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  return { dir, store }
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

const image = (text: string): DecodedImage => {
  const bytes = Buffer.from(`\x89PNG ${text}`, 'latin1')
  return { bytes, media_type: 'image/png', sha256: createHash('sha256').update(bytes).digest('hex') }
}
/** A proof of delivery and a signature, decoded as the ingress decodes them. */
export const TEST_POD = image('proof of delivery')
const TEST_SIGNATURE = image('signature')
/** An image as the read model shows it. */
export const refOf = (decoded: DecodedImage): ImageRef => ({ sha256: decoded.sha256, media_type: decoded.media_type, bytes: decoded.bytes.length })

/** A delivery as the ingress has it after validation: the event, its date, its fields as sent. */
export function command(_account: string, event: WireEvent, fields: Record<string, unknown>): ValidDelivery {
  const { event_date, ...payload } = fields
  return { event, event_date: event_date as string, payload } as unknown as ValidDelivery
}

function commandFor(account: string, orderId: string, event: WireEvent, step: number, pick: () => number): ValidDelivery {
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
        ...(pick() < 0.5 ? { signature: TEST_SIGNATURE } : {}),
      })
    case 'ORDER_CANCELED':
      return command(account, event, { ...common, reason: 'customer asked' })
  }
}

/** Seals one delivery with its order's key and sends it through the real command handler and decider, as the ingress does. */
export async function send(store: TestStore, account: string, delivery: ValidDelivery, blobs?: Pick<BlobStore, 'put'>): Promise<string> {
  const sealed = await sealDelivery(store.keys, account, delivery)
  if (!sealed.ok) return sealed.refusal
  for (const blob of blobs === undefined ? [] : sealed.blobs) await blobs?.put(blob.bytes, blob.sha256)
  const result = await handleCommand(store, streamNameFor(account, delivery.payload.order_id), orderDecider, sealed.command, {
    metadata: { received_at: new Date().toISOString(), key_id: 'test-key', request_id: 'test', schema_version: SCHEMA_VERSION },
  })
  return result.outcome === 'rejected' ? result.error : result.outcome
}

/**
 * Random traffic over `orders` order ids in two accounts: adds, updates, completions, cancels,
 * including ones the decider rejects (locked, not found, conflict), which append nothing.
 */
export async function randomTraffic(store: TestStore, options: { seed: number; steps: number; orders: number }): Promise<Record<string, number>> {
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

/** The opener of a read model no event reaches (a file made only to be refused): opening one is a bug. */
export const noOpener: EventOpener = () => {
  throw new Error('no event was expected here')
}

/** The rows one query answers on a SQLite file, opened read-only and closed again. */
export function queryFile<Row>(path: string, sql: string): Row[] {
  const db = new Sqlite(path, { readonly: true })
  try {
    return db.prepare<[], Row>(sql).all()
  } finally {
    db.close()
  }
}
