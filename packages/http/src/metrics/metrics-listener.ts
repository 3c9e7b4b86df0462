import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { FastifyInstance } from 'fastify'

/**
 * /metrics on its own plain-HTTP port (WAYBILL_METRICS_PORT), for a scraper on a private network:
 * it carries no key and no order data. Every other path is 404.
 */
export async function listenMetrics(app: FastifyInstance, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    app.metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': app.metrics.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    )
  })
  server.listen(port, host)
  await once(server, 'listening')
  return server
}
