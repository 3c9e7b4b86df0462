import { StreamDeletedError } from '../errors.js'
import { FROM_LEADER } from './context.js'
import type { EsdbContext } from './context.js'
import { withinDeadline } from './deadline.js'
import { mapClientError } from './map-error.js'

/**
 * Refuses an append to a stream that reads empty because it was soft-deleted. EventStoreDB
 * would accept even a `no_stream` append there and number it from the deleted stream's next
 * revision, not 0, so the hash chain (which hashes each event's revision) and every reader
 * expecting revision 0 would be wrong. A soft delete leaves `truncateBefore` in the stream's
 * metadata; a stream that never existed has none. One more read per new stream is the price.
 */
export async function refuseIfDeleted(context: EsdbContext, streamName: string): Promise<void> {
  let truncateBefore: unknown
  try {
    const { metadata } = await withinDeadline(context.client.getStreamMetadata(streamName, FROM_LEADER), context.readTimeoutMs, `the metadata of ${streamName}`)
    truncateBefore = metadata?.truncateBefore
  } catch (error) {
    throw mapClientError(error, { streamName })
  }
  // A soft delete writes a number (at first the largest one, later the next revision).
  if (typeof truncateBefore === 'number' && truncateBefore > 0) {
    throw new StreamDeletedError(streamName, `it was soft-deleted before revision ${String(truncateBefore)}; EventStoreDB would number new events from there, not 0`)
  }
}
