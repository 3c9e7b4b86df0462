import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSeeder } from './seeder.js'

/**
 * A data dir whose store holds three sandbox orders (A-1 added, updated and canceled; A-2; A-3)
 * and acme's A-1, sealed with keys in `<dataDir>.subject-keys` (where `waybill` looks by default)
 * and appended through the real command handler; both removed at the test's end.
 */
export async function seeded(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-audit-'))
  t.teardown(async () => {
    await rm(dataDir, { recursive: true, force: true })
    await rm(`${dataDir}.subject-keys`, { recursive: true, force: true })
  })
  const seeder = await openSeeder(dataDir)
  for (const id of ['A-1', 'A-2', 'A-3']) {
    await seeder.run('sandbox', 'ORDER_ADD', { order_id: id, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' })
  }
  await seeder.run('sandbox', 'ORDER_UPDATE', { order_id: 'A-1', status: 'in_progress', address: '2 Main', delivery_date: '2025-05-03T00:00:00Z', event_date: '2025-05-01T01:00:00Z' })
  await seeder.run('sandbox', 'ORDER_CANCELED', { order_id: 'A-1', reason: 'gone', event_date: '2025-05-01T02:00:00Z' })
  await seeder.run('acme', 'ORDER_ADD', { order_id: 'A-1', customer: 'x', location: 'y', status: 'in_progress', address: 'far', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' })
  await seeder.close()
  return dataDir
}
