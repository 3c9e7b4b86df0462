import { setImmediate } from 'node:timers/promises'
import { evolveView, type OrderView } from '@waybill/domain'
import type { ChainVerdict, EventStore, RecordedEvent } from '@waybill/event-store'
import type { KeyLookup } from '@waybill/personal-data'
import type { AuditLog } from '@waybill/projector'
import { ChainCheck } from './chain-check.js'
import { readEventPage } from './event-page.js'
import { openRecorded } from './order-states.js'
import { streamSlices } from './stream-slices.js'

/**
 * One event of an order's history, as the JSON answer and the CSV show it. A type rather than an
 * interface, so that it is a plain record to the serializer Fastify compiles.
 */
export type HistoryEntry = {
  readonly event_id: string
  readonly stream: string
  readonly type: string
  /** As stored: what the event's leaf commits to (its personal fields sealed). */
  readonly data: Readonly<Record<string, unknown>>
  /** As sent, opened with the order's key; each personal one null once erased. Null for a type the domain does not know. */
  readonly fields: Readonly<Record<string, unknown>> | null
  readonly erased: boolean
  readonly event_date: string | null
  readonly received_at: string | null
  readonly revision: number
  readonly position?: string
  readonly leaf_index: number | null
  readonly key_id: string | null
  readonly request_id: string | null
  readonly state_after: OrderView | null
  readonly hash: string
  readonly prev_hash: unknown
}

export interface HistoryPageOptions {
  readonly stream: string
  /** The order's key in the subject key store (`'erased'` once destroyed). */
  readonly key: KeyLookup
  readonly after: number | undefined
  readonly limit: number
  /** Each event's global position is shown (auditor keys only). */
  readonly positions: boolean
  /**
   * The verdict wanted: on the page (its events and their link to the event before it, so that
   * a client reading every page has checked the whole chain), or on the whole stream (which the
   * CSV's last page states; on other pages it is not checked).
   */
  readonly chain: 'page' | 'stream'
  /** Writes a run of entries (JSON items joined by commas, or CSV rows). */
  readonly write: (entries: readonly HistoryEntry[]) => string
}

export interface HistoryPage {
  /** The page's entries as written, a run per slice of the stream (none empty). */
  readonly runs: readonly Buffer[]
  readonly nextCursor: string | null
  /** On the whole stream: the verdict on the last page, `{ ok: true }` on the others. */
  readonly chain: ChainVerdict
}

/**
 * One page of an order's history, built a slice of the stream at a time (`streamSlices`): each
 * slice is opened with the order's key, folded into the order's view (the domain's `evolveView`,
 * not the projector's), checked and written before the next is read, so a page of the largest
 * order never holds the event loop for more than a slice's work. Each state depends on every
 * event before it, so the events before the page are read and folded too.
 */
export async function readHistoryPage(store: Pick<EventStore, 'readStream'>, auditLog: Pick<AuditLog, 'leavesOf'>, options: HistoryPageOptions): Promise<HistoryPage> {
  const runs: Buffer[] = []
  let view: OrderView | null = null
  const chain = new ChainCheck()
  // The whole stream's verdict is only said under the last page: the events are kept until the
  // page is known to be the last, and checked then, so that earlier pages hash nothing.
  const whole: Array<readonly RecordedEvent[]> = []
  const nextCursor = await readEventPage(streamSlices(store, options.stream), options.after, options.limit, (read, onPage) => {
    const pageFrom = read.length - onPage.length
    const shown: Array<{ readonly opened: ReturnType<typeof openRecorded>; readonly view: OrderView | null }> = []
    for (const [i, event] of read.entries()) {
      const opened = openRecorded(options.stream, options.key, event)
      if (opened !== null) view = evolveView(view, opened)
      if (i >= pageFrom) shown.push({ opened, view })
    }
    if (options.chain === 'stream') whole.push(read)
    else {
      chain.skip(read.slice(0, pageFrom))
      chain.add(onPage)
    }
    const first = onPage[0]
    const last = onPage.at(-1)
    if (first === undefined || last === undefined) return
    const leaves = new Map(auditLog.leavesOf(options.stream, first.revision, last.revision).map((leaf) => [leaf.revision, leaf.leafIndex]))
    runs.push(Buffer.from(options.write(onPage.map((event, i) => historyEntry(event, options, shown[i] ?? { opened: null, view: null }, leaves.get(event.revision) ?? null)))))
  })
  if (nextCursor === null) {
    for (const [i, read] of whole.entries()) {
      if (i > 0) await setImmediate()
      chain.add(read)
    }
  }
  return { runs, nextCursor, chain: chain.verdict }
}

const text = (value: unknown): string | null => typeof value === 'string' ? value : null

function historyEntry(event: RecordedEvent, options: HistoryPageOptions, after: { readonly opened: ReturnType<typeof openRecorded>; readonly view: OrderView | null },
  leafIndex: number | null): HistoryEntry {
  return {
    event_id: event.id,
    stream: options.stream,
    type: event.type,
    data: event.data,
    fields: (after.opened?.data ?? null) as Readonly<Record<string, unknown>> | null,
    erased: after.opened?.erased ?? false,
    event_date: text(event.data.event_date),
    received_at: text(event.metadata.received_at),
    revision: event.revision,
    ...(options.positions ? { position: event.position.commit.toString() } : {}),
    leaf_index: leafIndex,
    key_id: text(event.metadata.key_id),
    request_id: text(event.metadata.request_id),
    state_after: after.view,
    hash: event.hash,
    prev_hash: event.metadata.prev_hash,
  }
}
