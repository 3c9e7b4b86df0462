import t from 'tap'
import { comparePositions, type Position, type ProjectionEvent } from '@waybill/event-store'
import { startProjector, type EventSource } from '../../src/index.js'
import { openMemoryKeyStore } from '@waybill/personal-data'
import { tempDir } from '../helpers.js'

// A log whose positions are byte offsets, as on EventStoreDB (100 apart), served by a source
// whose reads can trail the head it reports: what a reconnect to another node between the two
// calls looks like.
const at = (n: number): Position => ({ commit: BigInt(n * 100), prepare: BigInt(n * 100) })
function orderAdded(n: number): ProjectionEvent {
  return {
    streamName: `order-acme-${n}`, id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'OrderAdded', revision: 0, position: at(n), metadata: { received_at: '2025-01-01T00:00:00Z' },
    data: { order_id: String(n), customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: '2025-01-02T00:00:00Z', event_date: '2025-01-01T00:00:00Z' },
  }
}

function laggingSource(log: ProjectionEvent[], visible: () => number): EventSource {
  const after = (position: Position | null) => log.filter((e) => position === null || comparePositions(e.position, position) > 0)
  return {
    pull: async (position, maxCount) => {
      const read = after(position).slice(0, Math.max(0, visible() - (log.length - after(position).length))).slice(0, maxCount)
      return { events: read, through: read.at(-1)?.position ?? null, complete: read.length < maxCount }
    },
    headPosition: async () => log.at(-1)?.position ?? null,
    countAfter: async (position, limit) => Math.min(limit, after(position).length),
    waitForMore: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }
}

t.test('the checkpoint moves only as far as the read went, never to a head read apart from it', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const log = [1, 2, 3, 4, 5].map(orderAdded)
  let visible = 3
  const projector = startProjector({ source: () => laggingSource(log, () => visible), keys: openMemoryKeyStore(), dataDir: dir.path, pollMs: 10 })
  t.teardown(() => projector.stop())
  await projector.waitFor(at(3))
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(projector.status().orders.checkpoint, '300/300', 'the head (500) was reported, but only up to 300 was read')
  t.equal(projector.lag(), 2, 'lag in events: two, not 200 position units')
  visible = 5
  await projector.waitFor(at(5))
  t.equal(projector.status().orders.appliedEvents, 5, 'events 4 and 5 were applied, not skipped')
})
