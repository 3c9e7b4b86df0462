import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openSqliteEventStore } from '../src/index.js'
import { eventStoreContract } from './contract.js'

for (const writer of ['worker', 'inline'] as const) {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-contract-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'events.db')
  await eventStoreContract(t, {
    name: `sqlite (${writer} writer, file on disk)`,
    open: () => openSqliteEventStore({ path, writer }),
    reopen: () => openSqliteEventStore({ path, writer }),
  })
}
