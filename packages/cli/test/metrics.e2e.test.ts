import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { addBody, clientFor } from './https-client.js'
import { startServe } from '../src/testing.js'

t.test('WAYBILL_METRICS_PORT moves /metrics to its own plain-HTTP port, with the projector lag', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-metrics-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const server = await startServe({ WAYBILL_DATA_DIR: dir, WAYBILL_METRICS_PORT: '0' })
  t.teardown(() => server.stop())
  // The start's lines are JSON log lines here (stdout is no terminal): the URL ends at the quote.
  const url = /metrics at (http:\/\/[^\s"]+)/.exec(server.output())?.[1]
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
  const client = await clientFor(server.httpsUrl, dir)
  t.teardown(() => client.close())
  t.equal((await client.post(addBody('m-1'))).status, 201)

  const scrape = await request(url!)
  const text = await scrape.body.text()
  t.equal(scrape.statusCode, 200)
  t.match(text, /^waybill_events_accepted_total\{type="ORDER_ADD"\} 1$/m)
  t.match(text, /^waybill_projector_lag_events \d+$/m, 'the projector thread reports its lag')
  // The thread reports every 500 ms: up, and the order applied, within a few of them.
  let projected = text
  for (let i = 0; i < 50 && !(/^waybill_projector_up 1$/m.test(projected) && /^waybill_projector_lag_events 0$/m.test(projected)); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    projected = await (await request(url!)).body.text()
  }
  t.match(projected, /^waybill_projector_up 1$/m, 'and that it is up')
  t.match(projected, /^waybill_projector_lag_events 0$/m, 'caught up')
  t.match(text, /^waybill_append_duration_seconds_bucket\{le="0\.005"\} \d+$/m)
  // The audit log, a projection of the same thread, with the kept heads beside it.
  t.match(projected, /^waybill_audit_up 1$/m)
  t.match(projected, /^waybill_audit_signing_blocked 0$/m)
  t.match(projected, /^waybill_projector_applied_events_total [1-9]\d*$/m, 'the orders applied, as `waybill projector` reports them')
  let headed = projected
  for (let i = 0; i < 50 && !/^waybill_audit_head_tree_size 1$/m.test(headed); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    headed = await (await request(url!)).body.text()
  }
  t.match(headed, /^waybill_audit_head_tree_size 1$/m, 'the order event is under a signed head')
  t.match(headed, /^waybill_audit_head_age_seconds \d+(\.\d+)?$/m)
  t.match(headed, /^waybill_ready 1$/m)
  t.equal((await client.get('/metrics', null)).status, 404, 'no longer on the HTTPS listener')
  t.equal((await request(url!.replace('/metrics', '/other'))).statusCode, 404)
})
