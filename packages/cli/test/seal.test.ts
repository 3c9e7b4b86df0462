import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t, { type Test } from 'tap'
import { openFileBlobStore, openSqliteEventStore } from '@waybill/event-store'
import { openSqliteKeyStore } from '@waybill/personal-data'
import { HeadStore, openSigningKey, writeSealedLog } from '@waybill/projector'
import { runWaybill } from '../src/testing.js'
import { previousReleaseDataDir } from './seal-fixture.js'

async function dataDir(t: Test) {
  const root = await mkdtemp(join(tmpdir(), 'waybill-seal-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const env = {
    WAYBILL_DATA_DIR: join(root, 'data'), WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_SUBJECT_KEY_DIR: join(root, 'subject-keys'), LOG_LEVEL: 'warn',
  }
  await previousReleaseDataDir(env.WAYBILL_DATA_DIR, env.WAYBILL_AUDIT_KEY_DIR)
  return env
}

t.test('a seal that stopped after it was recorded, before the sealed log was in place, is finished by the next run', async (t) => {
  const env = await dataDir(t)
  const dir = env.WAYBILL_DATA_DIR
  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), writer: 'inline' })
  const keys = await openSqliteKeyStore({ dir: env.WAYBILL_SUBJECT_KEY_DIR })
  const heads = HeadStore.inDataDir(dir)
  try {
    await writeSealedLog({
      store, blobs: await openFileBlobStore(join(dir, 'blobs')), keys, dataDir: dir, heads, signingKey: openSigningKey(env.WAYBILL_AUDIT_KEY_DIR, heads, { create: false }),
      sealedLogPath: join(dir, 'events.sealed.sqlite'), reason: 'ticket 9', requestedBy: 'dpo',
    })
  } finally {
    heads.close()
    await keys.close()
    await store.close()
  }
  t.equal((await runWaybill(['audit', 'verify'], { env })).code, 1, 'in between, the plain log disagrees with the recorded seal')
  const resumed = await runWaybill(['seal', '--reason', 'another ticket'], { env })
  t.equal(resumed.code, 0, resumed.stderr)
  t.match(resumed.stdout, /finishing the seal of .*, which did not finish\nthe sealed log is in place: .*reason "ticket 9"/)
  t.notOk((await readdir(dir)).includes('events.sealed.sqlite'))
  for (const command of [['verify'], ['audit', 'verify'], ['seal', '--verify']]) {
    const run = await runWaybill(command, { env })
    t.equal(run.code, 0, `${command.join(' ')}: ${run.stdout}`)
  }
  t.match((await runWaybill(['seal', '--reason', 'x'], { env })).stdout, /nothing to seal: the log was sealed at/)
})

t.test('a data dir that does not verify is not sealed; a log never sealed fails --verify; --verify takes no reason', async (t) => {
  const env = await dataDir(t)
  const db = new Sqlite(join(env.WAYBILL_DATA_DIR, 'events.sqlite'))
  db.prepare(`UPDATE events SET data = replace(data, 'House 3, Main St', 'House 33, Main St') WHERE stream = 'order-globex-P-3' AND revision = 0`).run()
  db.close()
  const refused = await runWaybill(['seal', '--reason', 'ticket 9'], { env })
  t.equal(refused.code, 1)
  t.match(refused.stderr, /does not verify, so it is not sealed \(nothing was changed\):\n {2}stream order-globex-P-3: the hash chain breaks at revision 0/)
  const never = await runWaybill(['seal', '--verify'], { env })
  t.equal(never.code, 1)
  t.match(never.stdout, /the log was never sealed \(it holds 60 version-1 event\(s\): run `waybill seal`\)/)
  const usage = await runWaybill(['seal', '--verify', '--reason', 'x'], { env })
  t.equal(usage.code, 2)
  t.match(usage.stderr, /--verify takes no --reason/)
  const missing = await runWaybill(['seal', '--reason', 'x'], { env: { ...env, WAYBILL_DATA_DIR: join(env.WAYBILL_DATA_DIR, 'nope') } })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /no event store at/)
  t.notOk((await readdir(env.WAYBILL_DATA_DIR)).includes('nope'), 'and creates nothing')
})

t.test('a log this Waybill wrote has nothing to seal', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-seal-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: join(root, 'data'), WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key'), WAYBILL_SUBJECT_KEY_DIR: join(root, 'subject-keys'), LOG_LEVEL: 'warn' }
  t.equal((await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:read'], { env })).code, 0)
  const run = await runWaybill(['seal', '--reason', 'ticket 9'], { env })
  t.equal(run.code, 0, run.stderr)
  t.equal(run.stdout, 'nothing to seal: every event of the log is sealed already (written by this Waybill)\n')
  t.same(await readdir(env.WAYBILL_DATA_DIR).then((names) => names.filter((name) => name.startsWith('events.sealed'))), [])
})
