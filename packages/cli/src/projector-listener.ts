import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { LAG_COUNT_LIMIT, type Projector } from '@waybill/projector'

/**
 * `waybill projector`'s own plain-HTTP listener, for probes and a scraper on a private network
 * (it binds WAYBILL_METRICS_HOST, loopback by default): `/healthz` (the process answers),
 * `/readyz` (its last batch reached the store), `/metrics` (lag in events and what it applied),
 * in Prometheus' text format. It carries no order data.
 */
export async function listenProjectorHealth(projector: Projector, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    const status = projector.status()
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end()
    } else if (path === '/healthz') {
      json(response, 200, { status: 'ok' })
    } else if (path === '/readyz') {
      const ready = status.state === 'running' || status.state === 'caught_up'
      json(response, ready ? 200 : 503, { status: ready ? 'ready' : status.state, ...(status.lastError === null ? {} : { error: status.lastError }) })
    } else if (path === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(metrics(projector))
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
    }
  })
  server.listen(port, host)
  await once(server, 'listening')
  return server
}

function json(response: import('node:http').ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function metrics(projector: Projector): string {
  const status = projector.status()
  const up = status.state === 'running' || status.state === 'caught_up' ? 1 : 0
  return [
    `# HELP waybill_projector_lag_events Events in the log after the read model's checkpoint (counted up to ${LAG_COUNT_LIMIT}).`,
    '# TYPE waybill_projector_lag_events gauge',
    `waybill_projector_lag_events ${status.lag}`,
    '# HELP waybill_projector_applied_events_total Order events applied to the read model since the process started.',
    '# TYPE waybill_projector_applied_events_total counter',
    `waybill_projector_applied_events_total ${status.appliedEvents}`,
    '# HELP waybill_projector_up 1 while the projector reads the store without failing, 0 while it retries.',
    '# TYPE waybill_projector_up gauge',
    `waybill_projector_up ${up}`,
    '',
  ].join('\n')
}
