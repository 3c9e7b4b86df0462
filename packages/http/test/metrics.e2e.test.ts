import t from 'tap'
import { request } from 'undici'
import { WAYBILL_VERSION } from '@waybill/domain'
import { addBody, completeBody, orderId } from './fixtures.js'
import { startTestServer } from './harness.js'

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels === '' ? ' ' : `{${labels}} `}`))
  return line === undefined ? undefined : Number(line.split(' ').at(-1))
}

t.test('/metrics on its own loopback listener: accepted events by type, errors by code, append latency, group-commit batches', async (t) => {
  const s = await startTestServer(t)
  const id = orderId('metrics')
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201, 'exact retry')
  t.equal((await s.json('/v1/deliveries', completeBody(id))).status, 202)
  t.equal((await s.json('/v1/deliveries', completeBody(orderId('none')))).status, 404)
  t.equal((await s.json('/v1/deliveries', {}, 'wb_test_nonsense')).status, 401)

  t.match(s.server.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
  const reply = await request(s.server.metricsUrl ?? '')
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const text = await reply.body.text()
  t.equal(sample(text, 'waybill_events_accepted_total', 'type="ORDER_ADD"'), 2)
  t.equal(sample(text, 'waybill_events_accepted_total', 'type="ORDER_COMPLETE"'), 1)
  t.equal(sample(text, 'waybill_errors_total', 'code="not_found",status="404"'), 1)
  t.equal(sample(text, 'waybill_errors_total', 'code="invalid_api_key",status="401"'), 1)
  // Two appends reached the store (the retry was decided as already applied, without one).
  t.equal(sample(text, 'waybill_append_duration_seconds_count'), 2)
  t.ok((sample(text, 'waybill_append_duration_seconds_sum') ?? 0) > 0)
  t.ok((sample(text, 'waybill_group_commit_batch_size_bucket', 'le="+Inf"') ?? 0) >= 2, 'at least the two appends (and the sandbox key) as batches')
  t.equal(sample(text, 'waybill_group_commit_batch_size_count'), sample(text, 'waybill_group_commit_batch_size_bucket', 'le="+Inf"'), 'the count is the +Inf bucket')
  t.ok((sample(text, 'waybill_group_commit_batch_size_sum') ?? 0) >= 2, 'its sum counts the appends')
  t.ok((sample(text, 'waybill_process_resident_memory_bytes') ?? 0) > 0, 'process metrics too')
  t.equal(sample(text, 'waybill_build_info', `version="${WAYBILL_VERSION}",node="${process.version}"`), 1, 'which Waybill answers')

  // Every metric has the type it is: histograms are histograms, totals are counters.
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']))
  t.equal(types.get('waybill_group_commit_batch_size'), 'histogram')
  t.equal(types.get('waybill_http_request_duration_seconds'), 'histogram')
  t.equal(types.get('waybill_append_duration_seconds'), 'histogram')
  // (prom-client's own process metrics are as it makes them: its waybill_nodejs_active_*_total are gauges.)
  for (const [name, type] of types) {
    if (name.endsWith('_total') && !/^waybill_(nodejs|process)_/.test(name)) t.equal(type, 'counter', `${name} is a counter`)
  }
  t.notOk([...types.keys()].some((name) => name.endsWith('_bucket')), 'no bucket typed on its own')

  // Requests by route pattern (never the path with its ids) and status.
  t.equal(sample(text, 'waybill_http_request_duration_seconds_count', 'method="POST",route="/v1/deliveries",status="201"'), 2)
  t.equal(sample(text, 'waybill_http_request_duration_seconds_count', 'method="POST",route="/v1/deliveries",status="404"'), 1)
  t.equal(sample(text, 'waybill_http_request_duration_seconds_bucket', 'le="+Inf",method="POST",route="/v1/deliveries",status="202"'), 1)
  t.notMatch(text, new RegExp(id), 'no order id in any label')

  // The data directory: free space, and what each part weighs.
  t.ok((sample(text, 'waybill_data_dir_free_bytes') ?? 0) > 0)
  t.ok((sample(text, 'waybill_data_dir_size_bytes') ?? 0) >= (sample(text, 'waybill_data_dir_free_bytes') ?? 0))
  t.ok((sample(text, 'waybill_data_bytes', 'part="events"') ?? 0) > 0, 'the event store\'s file')
  t.ok((sample(text, 'waybill_data_bytes', 'part="audit_heads"') ?? 0) > 0, 'the heads file')
  t.equal(sample(text, 'waybill_ready'), 1)

  t.equal((await s.send('GET', '/metrics', { key: null })).status, 404, 'not on the API listener')
  t.equal((await s.sendPlain('GET', '/metrics', { key: null })).json?.code, 'insecure_connection', 'plain HTTP still refuses')
})
