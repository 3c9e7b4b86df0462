import { generateKeyPairSync } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { positionToString } from '@waybill/event-store'
import t from 'tap'
import { AuditLogWriter, HeadStore, ReadModel, ReadModelWriter, startProjector, verifyOrders, type ProjectorStatus } from '../../src/index.js'
import { noOpener, openStore, randomTraffic, tempDir } from '../helpers.js'

/** Makes `file` in `dir` refuse to open: a schema version no Waybill wrote. */
function refusedFile(dir: string, file: 'read-model.sqlite' | 'audit-log.sqlite'): void {
  const path = join(dir, file)
  if (file === 'read-model.sqlite') new ReadModelWriter(path, { open: noOpener }).close()
  else new AuditLogWriter(path).close()
  const db = new Sqlite(path)
  db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run()
  db.close()
}

async function until(projector: { status(): ProjectorStatus }, check: (status: ProjectorStatus) => boolean): Promise<void> {
  const end = Date.now() + 20_000
  while (!check(projector.status())) {
    if (Date.now() > end) throw new Error(`timed out: ${JSON.stringify(projector.status())}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

for (const broken of ['orders', 'audit'] as const) {
  t.test(`a ${broken} file that cannot be written holds up only its own projection; the other keeps going`, async (t) => {
    const dir = await tempDir()
    t.teardown(() => dir.remove())
    const store = await openStore(dir.path)
    t.teardown(() => store.close())
    await randomTraffic(store, { seed: 31, steps: 120, orders: 20 })
    const head = (await store.headPosition())!
    refusedFile(dir.path, broken === 'orders' ? 'read-model.sqlite' : 'audit-log.sqlite')
    const heads = HeadStore.inDataDir(dir.path)
    t.teardown(() => heads.close())
    const errors: string[] = []
    const projector = startProjector({
      store, keys: store.keys, dataDir: dir.path, pollMs: 10, retry: { initialMs: 10, maxMs: 40 },
      audit: { signingKey: generateKeyPairSync('ed25519').privateKey, heads },
      logger: { info() {}, warn() {}, error: (_o, m) => errors.push(m ?? '') },
    })
    t.teardown(() => projector.stop())
    const other = broken === 'orders' ? 'audit' : 'orders'
    await until(projector, (s) => s[broken]?.state === 'retrying' && s[other]?.state === 'caught_up')
    const status = projector.status()
    t.match(status[broken]?.lastError, /schema version/, `${broken}: retrying, with the reason`)
    t.equal(status[other]?.checkpoint, positionToString(head), `${other}: caught up with the log`)
    t.same(errors, [`projector: ${broken} batch failed; retrying with backoff`], 'one error line, for the broken one')
    if (broken === 'orders') t.ok((heads.latest()?.tree_size ?? 0) > 0, 'the audit log signed its head all the same')

    rmSync(join(dir.path, broken === 'orders' ? 'read-model.sqlite' : 'audit-log.sqlite'))
    await until(projector, (s) => s[broken]?.state === 'caught_up')
    t.equal(projector.status()[broken]?.checkpoint, positionToString(head), `${broken}: caught up by itself once its file could be made`)
    await projector.stop()
    const readModel = new ReadModel(dir.path)
    t.teardown(() => readModel.close())
    t.ok((await verifyOrders({ store, keys: store.keys, readModel })).ok)
  })
}
