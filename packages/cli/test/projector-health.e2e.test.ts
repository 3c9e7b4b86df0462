import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { WAYBILL_VERSION } from '@waybill/domain'
import { ReadModelWriter } from '@waybill/projector'
import { runWaybill, startWaybill } from '../src/testing.js'

// `waybill projector`: its health and metrics listener, on loopback.
t.test('waybill projector serves /healthz, /readyz and /metrics with the lag in events', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-projector-health-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  // A few events first, so there is something to apply.
  t.equal((await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:add'], { env: { WAYBILL_DATA_DIR: dataDir } })).code, 0)
  // A webhook endpoint, which this projector delivers (nothing is accepted after it: no request is made).
  const added = await runWaybill(['webhooks', 'add', 'https://hooks.example.com/waybill'], { env: { WAYBILL_DATA_DIR: dataDir } })
  const endpoint = added.stdout.split('\n')[0] ?? ''
  t.match(endpoint, /^ep_[0-9a-f]{16}$/)
  const projector = startWaybill(['projector'], { env: { WAYBILL_DATA_DIR: dataDir, WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'warn' } })
  t.teardown(() => projector.stop())
  const [, base] = await projector.until(/health and metrics on (http:\/\/127\.0\.0\.1:\d+)/)
  t.same(await (await fetch(`${base}/healthz`)).json(), { status: 'ok' })
  let ready = await fetch(`${base}/readyz`)
  for (let i = 0; i < 50 && ready.status !== 200; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    ready = await fetch(`${base}/readyz`)
  }
  t.equal(ready.status, 200, 'ready once a batch of each projection reached the store')
  t.same(await ready.json(), { status: 'ready' })
  const metrics = await (await fetch(`${base}/metrics`)).text()
  t.match(metrics, /^# TYPE waybill_projector_lag_events gauge$/m)
  t.match(metrics, /^waybill_projector_lag_events 0$/m, 'the orders read model caught up: no event behind')
  t.match(metrics, /^waybill_projector_up 1$/m)
  t.match(metrics, /^waybill_audit_lag_events 0$/m, 'the audit log, a projection of its own, too')
  t.match(metrics, /^waybill_audit_up 1$/m)
  t.match(metrics, /^waybill_audit_leaves 0$/m, 'a key event is no leaf')
  t.match(metrics, /^waybill_audit_signing_blocked 0$/m)
  t.match(metrics, /^# TYPE waybill_projector_applied_events_total counter$/m)
  t.match(metrics, /^waybill_data_dir_free_bytes \d+/m, 'its data dir\'s free space')
  t.ok(metrics.includes(`\nwaybill_webhook_enabled{endpoint="${endpoint}"} 1\n`), 'the webhook endpoint it delivers to')
  t.ok(metrics.includes(`\nwaybill_webhook_backlog_messages{endpoint="${endpoint}"} 0\n`))
  t.match(metrics, /^# TYPE waybill_webhook_attempts_total counter$/m)
  t.match(metrics, /^waybill_data_bytes\{part="read_model"\} \d+/m)
  t.match(metrics, /^waybill_process_resident_memory_bytes \d+/m, 'process metrics, as serve has')
  t.ok(metrics.includes(`\nwaybill_build_info{version="${WAYBILL_VERSION}",node="${process.version}"} 1\n`), 'which Waybill it is, as serve says')
  t.equal((await fetch(`${base}/nothing`)).status, 404)
  const stopped = await projector.stop()
  t.equal(stopped.code, 0, 'stops cleanly')
  t.equal(stopped.stderr, '', 'nothing on stderr: its lines are on stdout')
})

t.test('waybill projector logs JSON lines in the shape serve\'s pino lines have, and its /readyz says why it is not ready', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-projector-health-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  t.equal((await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:add'], { env: { WAYBILL_DATA_DIR: dataDir } })).code, 0)
  // A read model from a newer Waybill: the orders projection refuses it and retries.
  const writer = new ReadModelWriter(join(dataDir, 'read-model.sqlite'), { open: () => { throw new Error('no event is projected here') } })
  writer.close()
  const db = new Sqlite(join(dataDir, 'read-model.sqlite'))
  db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`).run()
  db.close()
  const projector = startWaybill(['projector', '--status-every', '0.2'], { env: { WAYBILL_DATA_DIR: dataDir, WAYBILL_PROJECTOR_PORT: '0', LOG_LEVEL: 'info' } })
  t.teardown(() => projector.stop())
  const [, base] = await projector.until(/health and metrics on (http:\/\/127\.0\.0\.1:\d+)/)
  let ready = await fetch(`${base}/readyz`)
  let body = await ready.json() as { status: string; reasons?: string[] }
  for (let i = 0; i < 50 && !(body.reasons ?? []).some((r) => r.startsWith('orders projection retrying')); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    ready = await fetch(`${base}/readyz`)
    body = await ready.json() as { status: string; reasons?: string[] }
  }
  t.equal(ready.status, 503)
  t.match(body, { status: 'not_ready', reasons: [/^orders projection retrying: read model .* has schema version 99, newer than this Waybill's 5/] })
  t.match(await (await fetch(`${base}/metrics`)).text(), /^waybill_projector_up 0$/m)
  await projector.until(/projector: orders retrying/)
  await projector.stop()
  const lines = projector.output().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  t.ok(lines.every((line) => typeof line['level'] === 'number' && typeof line['time'] === 'number' && typeof line['pid'] === 'number' && typeof line['msg'] === 'string'),
    'every line is a pino line: level a number, time in epoch ms, pid, msg')
  t.match(lines.find((line) => line['level'] === 50), { msg: 'projector: orders batch failed; retrying with backoff', projection: 'orders', err: { message: /newer than this Waybill's/ } },
    'the failure, with its error')
  t.match(lines.find((line) => line['projection'] === 'orders' && line['state'] === 'retrying'), { level: 30, msg: /^projector: orders retrying checkpoint/, lag: Number },
    'the status lines too, with their figures as fields')
})
