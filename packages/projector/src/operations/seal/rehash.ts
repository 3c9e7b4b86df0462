import { ORDER_CATEGORY, parseOrderStreamName } from '@waybill/domain'
import type { EventStore, RecordedEvent } from '@waybill/event-store'
import { CompactRange, toHex } from '@waybill/merkle'
import { SealBrokenError, type SubjectKeyStore } from '@waybill/personal-data'
import { eventLeafHash } from '../../audit/leaf.js'
import { eachBatch } from '../each-batch.js'
import { SEALED_FROM, version1Form } from './version-1.js'

/** What the re-hash of a sealed log found. */
export interface RehashReport {
  /** The root of the first `size` order events as they were before the seal; null when some could not be opened. */
  readonly root: string | null
  readonly size: number
  /** Events written by the seal that were opened back to their version-1 form. */
  readonly opened: number
  /** Why the root could not be recomputed, or where it broke: each problem once, by order. */
  readonly problems: readonly string[]
}

const BATCH = 10_000

/**
 * The root of the tree a seal replaced, recomputed from the sealed log (docs/audit.md#sealing):
 * each of the first `size` order events that the seal wrote is opened with its order's key and
 * put back in its version-1 form (`version1Form`), the others are taken as they are, and the
 * leaves are hashed as the audit log hashes them. Equal to the seal's old root, it shows that the
 * sealed log holds exactly what the plain one held. It needs every key: an order erased since
 * cannot be opened, and then no root is given.
 */
export async function rehashSealedLog(store: Pick<EventStore, 'readAll'>, keys: Pick<SubjectKeyStore, 'get'>, size: number): Promise<RehashReport> {
  const range = new CompactRange()
  const problems: string[] = []
  let opened = 0
  const leafOf = (event: RecordedEvent) => {
    if (event.metadata[SEALED_FROM] !== 1) return eventLeafHash(event)
    const name = parseOrderStreamName(event.streamName)
    const key = name === null ? null : keys.get(name.account, name.orderId)
    if (key === null || key === 'erased') {
      problems.push(`${event.streamName} revision ${event.revision}: ${key === 'erased' ? 'its order was erased since the seal' : 'no key for its order'}: it cannot be opened`)
      return null
    }
    try {
      const hash = eventLeafHash(version1Form(event, key))
      opened += 1
      return hash
    } catch (error) {
      if (!(error instanceof SealBrokenError)) throw error
      problems.push(`${event.streamName} revision ${event.revision}: ${error.message}`)
      return null
    }
  }
  // Stops where an event does not open (leafOf has said why): no root past it.
  await eachBatch(store, { categories: [ORDER_CATEGORY], batch: BATCH }, (batch) => {
    for (const event of batch) {
      if (range.size === size) break
      const hash = leafOf(event)
      if (hash === null) return false
      range.append(hash)
    }
    return range.size < size
  })
  if (problems.length === 0 && range.size < size) problems.push(`the log holds ${range.size} order events, the seal covered ${size}`)
  return { root: problems.length === 0 ? toHex(range.root()) : null, size, opened, problems }
}
