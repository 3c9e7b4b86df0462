import { comparePositions, parsePosition, type EventStore, type RecordedEvent } from '@waybill/event-store'

/** Events read to find one: those of one EventStoreDB transaction share a commit position. */
const LOOK_AHEAD = 1000

/**
 * The event at a manifest's log position (`"<commit>"` on the embedded store, `"<commit>/<prepare>"`
 * on EventStoreDB), or null when the log holds none there. Read from just before its commit
 * position: the events of one transaction share it, and are told apart by their prepare position.
 */
export async function eventAt(store: Pick<EventStore, 'readAll'>, position: string): Promise<RecordedEvent | null> {
  const wanted = parsePosition(position)
  if (wanted.commit === 0n) return null
  const before = wanted.commit - 1n
  const events = await store.readAll({ after: { commit: before, prepare: before }, maxCount: LOOK_AHEAD })
  return events.find((event) => comparePositions(event.position, wanted) === 0) ?? null
}
