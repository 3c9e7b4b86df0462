import { basename } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  eraseEventIdFor, isSealed, orderDecider, SCHEMA_VERSION, streamNameFor, upcastOrderEvent,
  type ErasureScope, type PersonalDataErasedData,
} from '@waybill/domain'
import { comparePositions, handleCommand, type BlobStore, type EventStore, type Position, type RecordedEvent } from '@waybill/event-store'
import type { ErasureNote, SubjectKeyStore } from '@waybill/personal-data'
import { imagesNamedBy } from '../audit/images.js'
import { currentGeneration, READ_MODEL_FILES, removeOldGenerations } from '../generation/pointer.js'

/** Whose personal data to erase: every order of one customer, or one order, within an account. */
export type ErasureTarget = { readonly customer: string } | { readonly order: string }

export interface ErasureRequest {
  readonly account: string
  readonly target: ErasureTarget
  /** Who asked (an operator, a data-protection ticket's author); stored in the log, so never a data subject's name. */
  readonly requestedBy: string
  /** Why (a ticket number, "retention 90d"); stored in the log like `requestedBy`. */
  readonly reason: string
}

export interface EraseOptions {
  readonly store: EventStore
  readonly keys: SubjectKeyStore
  readonly blobs: Pick<BlobStore, 'remove'>
  /** The clock the erasure is dated by. Default the system's. */
  readonly now?: () => Date
  /** `retention` when the retention policy erases; else from the target. */
  readonly scope?: ErasureScope
}

/** What happened to one order. */
export interface OrderErasure {
  readonly orderId: string
  readonly outcome: 'erased' | 'already_erased'
  /** Image blobs deleted now. */
  readonly images: number
}

export interface ErasureReport {
  readonly orders: readonly OrderErasure[]
  /** The position of the last PersonalDataErased appended now (null: none needed): the read model is scrubbed once its checkpoint passes it. */
  readonly position: Position | null
}

/** An erasure of a customer or an order the account never had: nothing was changed. */
export class UnknownSubjectError extends Error {
  constructor(account: string, target: ErasureTarget) {
    super('customer' in target
      ? `account ${account} has no order of customer ${JSON.stringify(target.customer)} (nothing was changed)`
      : `account ${account} has no order ${JSON.stringify(target.order)} (nothing was changed)`)
    this.name = 'UnknownSubjectError'
  }
}

/** An order whose events hold personal data in plain form (written before sealing): a key erasure cannot reach it. */
export class PlainOrderError extends Error {
  constructor(account: string, orderId: string) {
    super(`order ${orderId} of account ${account} was stored before personal data was sealed: its events hold it in plain form, ` +
      'which destroying a key cannot reach: seal the data dir first, with the service stopped (`waybill seal --reason …`, ' +
      'docs/personal-data.md#data-written-before-sealing); nothing was changed')
    this.name = 'PlainOrderError'
  }
}

/**
 * Erases the personal data of a customer's orders or of one order (docs/personal-data.md#erasure):
 * for each order, appends a `PersonalDataErased` (who asked, when, why: no personal value) through
 * the decider, so that the erasure is in the signed log and the order takes no event any more;
 * then destroys the order's key, which makes every sealed copy of its personal fields and images
 * unreadable (the log, its backups, the audit log); then deletes its image blobs. Each step is
 * idempotent and the order of the steps is the order of a retry: run again after a crash, it
 * finishes what was left. The read model is scrubbed by the projector when it reads the new
 * events (the caller waits for `position`).
 */
export async function erasePersonalData(options: EraseOptions, request: ErasureRequest): Promise<ErasureReport> {
  const { store, keys } = options
  const { account, target } = request
  const orderIds = await ordersToErase(options, request)
  const at = (options.now ?? (() => new Date()))().toISOString()
  const note: ErasureNote = { at, scope: options.scope ?? ('customer' in target ? 'customer' : 'order'), requestedBy: request.requestedBy, reason: request.reason }
  const orders: OrderErasure[] = []
  let position: Position | null = null
  for (const orderId of orderIds) {
    const stream = streamNameFor(account, orderId)
    const events = await store.readStream(stream)
    const appended = await appendErasure(store, account, eventData(orderId, note))
    if (appended !== null && (position === null || comparePositions(appended, position) > 0)) position = appended
    const destroyed = (await keys.erase(account, [orderId], note)).get(orderId)
    let images = 0
    for (const blob of events.flatMap((event) => imagesNamedBy(event.data))) if (await options.blobs.remove(blob)) images += 1
    orders.push({ orderId, outcome: appended === null && destroyed !== 'erased' ? 'already_erased' : 'erased', images })
  }
  return { orders, position }
}

/**
 * Appends the erasures the key store recorded that the log does not hold: after a restore of a
 * backup taken before them, the keys are destroyed (the key store is not in the backup) but the
 * restored log does not say so. Each is appended with its original note; its id is the order's
 * own, so this is a no-op where the log has it.
 */
export async function reapplyErasures(options: Pick<EraseOptions, 'store' | 'keys'>): Promise<{ readonly appended: number; readonly position: Position | null }> {
  let appended = 0
  let position: Position | null = null
  for (const erased of await options.keys.erasures()) {
    const at = await appendErasure(options.store, erased.account, eventData(erased.orderId, erased))
    if (at === null) continue
    appended += 1
    if (position === null || comparePositions(at, position) > 0) position = at
  }
  return { appended, position }
}

function eventData(orderId: string, note: ErasureNote): PersonalDataErasedData {
  return { order_id: orderId, erased_at: note.at, scope: note.scope, requested_by: note.requestedBy, reason: note.reason }
}

/** The orders the request names, each checked to be one a key erasure reaches. */
async function ordersToErase(options: EraseOptions, request: ErasureRequest): Promise<readonly string[]> {
  const { store, keys } = options
  const { account, target } = request
  if ('customer' in target) {
    const live = await keys.ordersOf(account, target.customer)
    if (live.length > 0) return live
    // Erased before: the key store knows the customer by its tag only, and the orders are done.
    if (await keys.customerErased(account, target.customer)) return []
    throw new UnknownSubjectError(account, target)
  }
  const events = await store.readStream(streamNameFor(account, target.order))
  const key = keys.get(account, target.order)
  if (events.length === 0 && key === null) throw new UnknownSubjectError(account, target)
  if (key === null && events.some((event) => personalInPlain(event))) throw new PlainOrderError(account, target.order)
  return [target.order]
}

function personalInPlain(event: RecordedEvent): boolean {
  const current = upcastOrderEvent(event)
  return current !== null && current.type !== 'PersonalDataErased' && !isSealed(current.data.personal)
}

/** Appends the order's PersonalDataErased unless the log has it; its position, or null when it was there. */
async function appendErasure(store: EventStore, account: string, data: PersonalDataErasedData): Promise<Position | null> {
  const result = await handleCommand(store, streamNameFor(account, data.order_id), orderDecider, { type: 'ERASE_PERSONAL_DATA', eventId: eraseEventIdFor(account, data.order_id), data }, {
    metadata: { received_at: new Date().toISOString(), key_id: 'operator', request_id: randomUUID(), schema_version: SCHEMA_VERSION },
  })
  // Otherwise the log has it (already_applied), or the order never got its first event stored
  // (not_found: a key made for a delivery then refused): nothing to record.
  return result.outcome === 'appended' ? result.position : null
}

/**
 * Deletes the read model's earlier generations (a rebuild keeps the one it replaced for readers
 * still on it): they hold the rows as they were before an erasure.
 */
export function dropEarlierReadModels(dataDir: string): void {
  removeOldGenerations(dataDir, READ_MODEL_FILES, [basename(currentGeneration(dataDir, READ_MODEL_FILES).path)])
}
