import { join } from 'node:path'
import t from 'tap'
import { openSqliteEventStore } from '../../src/index.js'
import { eventStoreContract } from '../contract.js'
import { tempDir } from '../store-fixture.js'

const path = join(await tempDir(t), 'events.db')
await eventStoreContract(t, {
  name: 'sqlite (inline writer, the default; file on disk)',
  open: () => openSqliteEventStore({ path }),
  reopen: () => openSqliteEventStore({ path }),
})
