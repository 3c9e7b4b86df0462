import { hashEvent } from '../hash-chain.js'
import type { EventData } from '../port.js'
import { chainMetadata } from './event-codec.js'
import type { ChainedEvent } from './event-codec.js'

/**
 * Links a batch into its stream's hash chain: the first event's `prev_hash` is the hash of the
 * event now at the stream's end (null for a new stream), each next one points at the one
 * before. Data and metadata go through JSON first so that the hash computed here is the hash
 * of exactly what a read will return (a Date, say, comes back as a string).
 */
export function chainEvents(streamName: string, firstRevision: number, prevHash: string | null, events: readonly EventData[]): ChainedEvent[] {
  let previous = prevHash
  return events.map((event, index) => {
    const asStored: EventData = {
      id: event.id,
      type: event.type,
      data: jsonRoundTrip(event.data),
      metadata: jsonRoundTrip(chainMetadata(event, previous)),
    }
    const hash = hashEvent({
      streamName,
      revision: firstRevision + index,
      id: asStored.id,
      type: asStored.type,
      data: asStored.data,
      metadata: asStored.metadata ?? {},
    })
    const chained: ChainedEvent = { event: asStored, prevHash: previous, hash }
    previous = hash
    return chained
  })
}

function jsonRoundTrip(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>
}
