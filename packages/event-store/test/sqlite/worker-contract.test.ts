import { join } from 'node:path'
import t from 'tap'
import { openSqliteEventStore } from '../../src/index.js'
import { eventStoreContract } from '../contract.js'
import { tempDir } from '../store-fixture.js'

// The writer worker runs TypeScript under tap, so each open compiles it afresh: seconds, not ms.
const path = join(await tempDir(t), 'events.db')
await eventStoreContract(t, {
  name: 'sqlite (worker writer; file on disk)',
  open: () => openSqliteEventStore({ path, writer: 'worker' }),
  reopen: () => openSqliteEventStore({ path, writer: 'worker' }),
})
