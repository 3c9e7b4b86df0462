import type { RecordedEvent } from '@waybill/event-store'

/**
 * Called with each slice as it is read, up to the page's end: `read` is every event of the slice
 * up to there, `onPage` the run of them on the page (its tail, possibly empty).
 */
export type SliceVisitor = (read: readonly RecordedEvent[], onPage: readonly RecordedEvent[]) => void

/**
 * A page of a stream read a slice at a time (`streamSlices`): the history and the proofs answer a
 * page at a time, so that no answer about one order is large, whatever the order. The page is the
 * first event whose revision is after `after` (the stream's first when undefined) and those that
 * follow it, at most `limit`. `visit` sees each slice before the next is read, so a route's work
 * on the events comes in slices too, and keeps what it needs of them. The stream is read up to
 * one event past the page, to know whether a next page exists; the answer is the revision to ask
 * the next page after, as text, or null on the last page.
 */
export async function readEventPage(slices: AsyncIterable<readonly RecordedEvent[]>, after: number | undefined, limit: number, visit: SliceVisitor): Promise<string | null> {
  let started = after === undefined
  let taken = 0
  let last: RecordedEvent | undefined
  for await (const slice of slices) {
    let first = slice.length
    let end = slice.length
    for (const [i, event] of slice.entries()) {
      if (!started && event.revision > (after ?? -1)) started = true
      if (!started) continue
      if (taken === limit) {
        end = i
        break
      }
      first = Math.min(first, i)
      taken += 1
      last = event
    }
    visit(end === slice.length ? slice : slice.slice(0, end), slice.slice(first, end))
    // An event past a full page: there is a next page.
    if (end < slice.length) return last === undefined ? null : String(last.revision)
  }
  return null
}
