import type { RecordedEvent, StreamStore } from '@waybill/event-store'

/**
 * The last event of a stream, or null when there is none, in about 2·log2(n) reads of one event
 * each. The port reads forwards only, and a use stream gains up to one event a minute for as long
 * as its key is used, so reading it whole would cost more every day. Revisions run from 0 without
 * gaps, so the last one is found by doubling a probe until it passes the end, then halving the gap.
 */
export async function lastEventOf(store: StreamStore, streamName: string): Promise<RecordedEvent | null> {
  const at = async (revision: number): Promise<RecordedEvent | undefined> =>
    (await store.readStream(streamName, { fromRevision: revision, maxCount: 1 }))[0]
  let last = await at(0)
  if (last === undefined) return null
  let low = 0
  let high = 1
  for (let probe = await at(high); probe !== undefined; probe = await at(high)) {
    last = probe
    low = high
    high *= 2
  }
  // `low` holds an event, `high` does not.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    const probe = await at(middle)
    if (probe === undefined) {
      high = middle
    } else {
      last = probe
      low = middle
    }
  }
  return last
}
