import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runWaybill } from '../src/testing.js'

// `waybill store check` against the embedded store, as an operator runs it.
t.test('store check: every check holds on the embedded store, as a table, exit 0', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-storecheck-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const run = await runWaybill(['store', 'check'], { env: { WAYBILL_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } })
  t.equal(run.code, 0, run.stdout + run.stderr)
  t.match(run.stdout, /^store: sqlite, SQLite [\d.]+, .*events\.sqlite$/m)
  t.match(run.stdout, /^scratch category: storecheck[0-9a-f]{12}$/m)
  for (const name of ['expected revision', '50 racing creates', 'idempotent re-append (sequential)', 'idempotent re-append (racing)',
    'read-after-write', 'read-all', 'subscription: catch-up', 'append of an image-bearing event', 'clean close']) {
    t.match(run.stdout, new RegExp(`^ok {4}${name.replace(/[()]/g, '\\$&')}`, 'm'), `${name} holds`)
  }
  t.match(run.stdout, /^all 9 checks hold$/m)
  t.notMatch(run.stdout, /FAIL/)

  const json = await runWaybill(['store', 'check', '--json'], { env: { WAYBILL_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } })
  t.equal(json.code, 0)
  const report = JSON.parse(json.stdout) as { ok: boolean; checks: Array<{ ok: boolean }> }
  t.equal(report.ok, true)
  t.equal(report.checks.length, 9)
})

t.test('store: anything but "check" is a usage error', async (t) => {
  const run = await runWaybill(['store'], { env: { WAYBILL_DATA_DIR: '/nonexistent' } })
  t.equal(run.code, 2)
  t.match(run.stderr, /expected the subcommand "check"/)
})
