import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { processRegistry, registerDataMetrics, registerOperationMetrics, registerProjectorMetrics, registerWebhookMetrics } from '@waybill/http/observability'
import { isUp, stallWatch, type HeadStore, type Projector, type ProjectorStatus } from '@waybill/projector'
import type { WebhookDeliverer } from '@waybill/webhooks'

export interface ProjectorListenerOptions {
  readonly port: number
  readonly host: string
  /** Its data directory: free space and sizes, and the operators' runs, in /metrics. */
  readonly dataDir: string
  /** The kept heads: the latest one's size and age, in /metrics. */
  readonly heads: HeadStore
  /** The webhook deliverer of this process: each endpoint's backlog and attempts, in /metrics. */
  readonly webhooks: Pick<WebhookDeliverer, 'status'>
}

/**
 * `waybill projector`'s own plain-HTTP listener, for probes and a scraper on a private network
 * (it binds WAYBILL_METRICS_HOST, loopback by default): `/healthz` (the process answers),
 * `/readyz` (every projection's last batch reached its file, and none is stuck with events
 * waiting; else 503 with the reasons), `/metrics` (the projections' and the webhook endpoints'
 * metrics, with the names `waybill serve` gives them, in Prometheus' text format). It carries no
 * order data. A failing webhook endpoint does not make the projector unready: it is the
 * receiver's state, which its own metrics report.
 */
export async function listenProjectorHealth(projector: Projector, options: ProjectorListenerOptions): Promise<Server> {
  const registry = processRegistry()
  registerProjectorMetrics(registry, { status: () => projector.status(), heads: options.heads })
  registerDataMetrics(registry, { dataDir: options.dataDir })
  registerOperationMetrics(registry, options.dataDir)
  registerWebhookMetrics(registry, () => options.webhooks.status())
  const notReady = readinessOf(projector)
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end()
    } else if (path === '/healthz') {
      json(response, 200, { status: 'ok' })
    } else if (path === '/readyz') {
      const reasons = notReady()
      json(response, reasons.length === 0 ? 200 : 503, reasons.length === 0 ? { status: 'ready' } : { status: 'not_ready', reasons })
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      )
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
    }
  })
  server.listen(options.port, options.host)
  await once(server, 'listening')
  return server
}

function json(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/**
 * Why the projector is not ready, if it is not: a projection whose last batch did not commit
 * (starting, retrying: with its last error, this listener being private), or one that is up
 * but stuck with events waiting (`stallWatch`).
 */
function readinessOf(projector: Projector): () => string[] {
  const stalls = stallWatch()
  return () => {
    const status: ProjectorStatus = projector.status()
    const reasons: string[] = []
    for (const [name, s] of [['orders', status.orders], ['audit', status.audit]] as const) {
      if (s !== null && !isUp(s)) reasons.push(`${name} projection ${s.state}${s.lastError === null ? '' : `: ${s.lastError}`}`)
    }
    for (const stall of stalls(status)) {
      const s = stall.projection === 'orders' ? status.orders : status.audit
      if (s !== null && isUp(s)) reasons.push(stall.reason)
    }
    return reasons
  }
}
