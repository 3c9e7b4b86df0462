import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventIdFor, orderDecider, SCHEMA_VERSION, streamNameFor, type OrderCommand, type WireEvent } from '@waybill/domain'
import { handleCommand, openSqliteEventStore } from '@waybill/event-store'

function cmd(account: string, event: WireEvent, data: Record<string, unknown>): OrderCommand {
  return { type: event, data, eventId: eventIdFor(account, event, data) } as unknown as OrderCommand
}

/**
 * A data dir whose store holds three sandbox orders (A-1 added, updated and canceled; A-2; A-3)
 * and acme's A-1, appended through the real command handler; removed at the test's end.
 */
export async function seeded(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-audit-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const metadata = { received_at: '2025-05-01T00:00:00Z', key_id: 'k', request_id: 'r', schema_version: SCHEMA_VERSION }
  const run = (account: string, c: OrderCommand) => handleCommand(store, streamNameFor(account, c.data.order_id), orderDecider, c, { metadata })
  for (const id of ['A-1', 'A-2', 'A-3']) {
    await run('sandbox', cmd('sandbox', 'ORDER_ADD', { order_id: id, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' }))
  }
  await run('sandbox', cmd('sandbox', 'ORDER_UPDATE', { order_id: 'A-1', status: 'in_progress', address: '2 Main', delivery_date: '2025-05-03T00:00:00Z', event_date: '2025-05-01T01:00:00Z' }))
  await run('sandbox', cmd('sandbox', 'ORDER_CANCELED', { order_id: 'A-1', reason: 'gone', event_date: '2025-05-01T02:00:00Z' }))
  await run('acme', cmd('acme', 'ORDER_ADD', { order_id: 'A-1', customer: 'x', location: 'y', status: 'in_progress', address: 'far', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' }))
  await store.close()
  return dataDir
}
