// A projector in its own process, for the crash test: the built package, a real store file.
import { join } from 'node:path'
import { openSqliteEventStore } from '@waybill/event-store'
import { startProjector } from '../../dist/index.js'

const [dataDir, batchSize] = process.argv.slice(2)
const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
const projector = startProjector({ store, dataDir, batchSize: Number(batchSize), pollMs: 20 })
setInterval(() => process.stdout.write(`${JSON.stringify(projector.status())}\n`), 10)
process.on('SIGTERM', () => {
  projector.stop().then(() => store.close()).then(() => process.exit(0))
})
