import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { isUp, LAG_COUNT_LIMIT, type Projector, type ProjectorStatus } from '@waybill/projector'
import { metricsText, webhookMetrics, type WebhookDeliverer } from '@waybill/webhooks'

/**
 * `waybill projector`'s own plain-HTTP listener, for probes and a scraper on a private network
 * (it binds WAYBILL_METRICS_HOST, loopback by default): `/healthz` (the process answers),
 * `/readyz` (the last batch of every projection reached the store), `/metrics` (each
 * projection's lag in events and whether it is up, each webhook endpoint's backlog and attempts),
 * in Prometheus' text format. It carries no order data. A failing webhook endpoint does not make
 * the projector unready: it is the receiver's state, reported by its own metrics.
 */
export async function listenProjectorHealth(projector: Projector, webhooks: Pick<WebhookDeliverer, 'status'>, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end()
    } else if (path === '/healthz') {
      json(response, 200, { status: 'ok' })
    } else if (path === '/readyz') {
      const down = firstDown(projector.status())
      json(response, down === null ? 200 : 503, down === null ? { status: 'ready' }
        : { status: down.state, projection: down.name, ...(down.lastError === null ? {} : { error: down.lastError }) })
    } else if (path === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(metrics(projector.status()) + metricsText(webhookMetrics(webhooks.status())))
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
    }
  })
  server.listen(port, host)
  await once(server, 'listening')
  return server
}

function json(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/** The first projection whose last batch did not commit, with its name; null when all are up. */
function firstDown(status: ProjectorStatus): { name: string; state: string; lastError: string | null } | null {
  if (!isUp(status.orders)) return { name: 'orders', ...status.orders }
  if (status.audit !== null && !isUp(status.audit)) return { name: 'audit', ...status.audit }
  return null
}

/**
 * The orders read model keeps the unlabelled names it always had (dashboards and serve's
 * `/metrics` read them); the audit log, a projection of its own, has its own names.
 */
function metrics(status: ProjectorStatus): string {
  const gauge = (name: string, help: string, value: number, type = 'gauge'): string[] =>
    [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`]
  const { orders, audit } = status
  return [
    ...gauge('waybill_projector_lag_events', `Events in the log after the orders read model's checkpoint (counted up to ${LAG_COUNT_LIMIT}).`, orders.lag),
    ...gauge('waybill_projector_applied_events_total', 'Order events applied to the read model since the process started.', orders.appliedEvents, 'counter'),
    ...gauge('waybill_projector_up', '1 while the orders projection reads the store without failing, 0 while it retries.', isUp(orders) ? 1 : 0),
    ...(audit === null ? [] : [
      ...gauge('waybill_audit_lag_events', `Events in the log after the audit log's checkpoint (counted up to ${LAG_COUNT_LIMIT}).`, audit.lag),
      ...gauge('waybill_audit_up', '1 while the audit log projection reads the store without failing, 0 while it retries.', isUp(audit) ? 1 : 0),
      ...gauge('waybill_audit_leaves', 'Leaves in the audit log (order events, in log order).', audit.treeSize),
      ...gauge('waybill_audit_signing_blocked', '1 while no head is signed because the audit log disagrees with a kept head (see the log).', audit.problem === null ? 0 : 1),
    ]),
    '',
  ].join('\n')
}
