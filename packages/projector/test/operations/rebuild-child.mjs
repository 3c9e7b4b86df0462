// `rebuildReadModel` in its own process, as `waybill rebuild` runs it next to a serving process.
import { join } from 'node:path'
import { openSqliteEventStore } from '@waybill/event-store'
import { openSqliteKeyStore } from '@waybill/personal-data'
import { rebuildReadModel } from '../../dist/index.js'

const [dataDir, batchSize] = process.argv.slice(2)
const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
const result = await rebuildReadModel({ store, keys, dataDir, batchSize: Number(batchSize) })
await store.close()
await keys.close()
process.stdout.write(`${JSON.stringify({ events: result.events, path: result.path })}\n`)
