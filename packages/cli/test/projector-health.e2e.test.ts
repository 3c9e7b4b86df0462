import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runWaybill, startWaybill } from '../src/testing.js'

// `waybill projector`: its health and metrics listener, on loopback.
t.test('waybill projector serves /healthz, /readyz and /metrics with the lag in events', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-projector-health-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  // A few events first, so there is something to apply.
  t.equal((await runWaybill(['keys', 'create', '--account', 'acme', '--scopes', 'orders:add'], { env: { WAYBILL_DATA_DIR: dataDir } })).code, 0)
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
  t.equal((await fetch(`${base}/nothing`)).status, 404)
  t.equal((await projector.stop()).code, 0, 'stops cleanly')
})
