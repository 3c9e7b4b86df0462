import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { toHex } from '@waybill/merkle'
import { AuditLog, HeadStore, rebuildAuditLog, startProjector, storeEventSource, type EventSource } from '../../src/index.js'
import { command, openStore, randomTraffic, send, tempDir } from '../helpers.js'

t.test('a head the live projector signs past what the audit rebuild has read makes it read on, not refuse', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const store = await openStore(dir.path)
  t.teardown(() => store.close())
  await randomTraffic(store, { seed: 51, steps: 150, orders: 20 })
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  const live = startProjector({ store, keys: store.keys, dataDir: dir.path, pollMs: 10, audit: { signingKey: generateKeyPairSync('ed25519').privateKey, heads, everyEvents: 1 } })
  t.teardown(() => live.stop())
  await live.waitFor((await store.headPosition())!)
  const signedFirst = heads.latest()!.tree_size

  // The rebuild's source: when its read first reaches the end of the log, couriers send three
  // more events and the live projector signs a head over them, before the rebuild sees them.
  const inner = storeEventSource(store)
  t.teardown(() => inner.close?.())
  let overtaken = false
  const source: EventSource = {
    ...inner,
    pull: async (after, maxCount) => {
      const batch = await inner.pull(after, maxCount)
      if (batch.complete && !overtaken) {
        overtaken = true
        for (const id of ['late-1', 'late-2', 'late-3']) {
          await send(store, 'acme', command('acme', 'ORDER_ADD', { order_id: id, customer: 'c', location: 'l', status: 'pending', address: 'a', delivery_date: '2026-02-01T00:00:00Z', event_date: '2026-01-01T00:00:00Z' }))
        }
        await live.waitFor((await store.headPosition())!)
      }
      return batch
    },
  }
  const result = await rebuildAuditLog({ source, dataDir: dir.path, heads, batchSize: 40 })
  t.ok(overtaken)
  t.equal(heads.latest()?.tree_size, signedFirst + 3, 'the live projector signed a head past the rebuild\'s first read')
  t.equal(result.leaves, signedFirst + 3, 'the rebuild read on to cover it')
  t.equal(result.headsChecked, [...heads.all()].length, 'and checked every head, that one included')
  const log = new AuditLog(dir.path)
  t.teardown(() => log.close())
  t.equal(log.path, result.path)
  t.equal(toHex(log.root(signedFirst + 3)), heads.latest()?.root_hash)
})
