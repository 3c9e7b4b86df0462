// A client writing continuously, in its own process, as couriers do while an operator rebuilds:
// orders added and updated through the real command handler until SIGTERM, then the count.
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import { orderDecider, SCHEMA_VERSION, streamNameFor } from '@waybill/domain'
import { handleCommand, openSqliteEventStore } from '@waybill/event-store'
import { openSqliteKeyStore, sealDelivery } from '@waybill/personal-data'

const [dataDir, prefix] = process.argv.slice(2)
const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
const metadata = { received_at: '2026-01-01T00:00:00.000Z', key_id: 'writer', request_id: 'writer', schema_version: SCHEMA_VERSION }
const date = (n) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString().replace('.000Z', 'Z')
// Sealed with each order's key, as the ingress seals them.
const send = async (event, { event_date, ...payload }) => {
  const sealed = await sealDelivery(keys, 'acme', { event, event_date, payload })
  if (!sealed.ok) throw new Error(`no key for ${payload.order_id}`)
  return handleCommand(store, streamNameFor('acme', payload.order_id), orderDecider, sealed.command, { metadata })
}
let stopping = false
process.on('SIGTERM', () => { stopping = true })
let orders = 0
while (!stopping) {
  const order_id = `${prefix}-${orders}`
  await send('ORDER_ADD', { order_id, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: date(orders + 99), event_date: date(orders) })
  await send('ORDER_UPDATE', { order_id, status: 'in_progress', address: '2 Main', delivery_date: date(orders + 99), event_date: date(orders + 1) })
  orders += 1
  // The appends resolve after their commit; a macrotask now and then lets SIGTERM's handler run.
  if (orders % 10 === 0) await turn()
}
await store.close()
await keys.close()
process.stdout.write(`${JSON.stringify({ orders })}\n`)
