// A projector in its own process, as `waybill projector` runs: the built package, a real store
// file. With a third argument it keeps the audit log too and signs a head every that many leaves.
import { generateKeyPairSync } from 'node:crypto'
import { join } from 'node:path'
import { openSqliteEventStore } from '@waybill/event-store'
import { openSqliteKeyStore } from '@waybill/personal-data'
import { HeadStore, startProjector } from '../../dist/index.js'

const [dataDir, batchSize, headEvery] = process.argv.slice(2)
const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
const keys = await openSqliteKeyStore({ dir: `${dataDir}.subject-keys` })
const heads = headEvery === undefined ? null : HeadStore.inDataDir(dataDir)
const audit = heads === null ? undefined : { signingKey: generateKeyPairSync('ed25519').privateKey, heads, everyEvents: Number(headEvery) }
const projector = startProjector({ store, keys, dataDir, batchSize: Number(batchSize), pollMs: 20, audit })
setInterval(() => process.stdout.write(`${JSON.stringify(projector.status())}\n`), 10)
process.on('SIGTERM', () => {
  projector.stop().then(() => { heads?.close() }).then(() => keys.close()).then(() => store.close()).then(() => process.exit(0))
})
