import { once } from 'node:events'
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import t from 'tap'
import { postWebhook } from '../../src/index.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

async function serve(t: { teardown(fn: () => unknown): void }, handler: Handler): Promise<URL> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)
}

const OPTIONS = { timeoutMs: 300, maxResponseBytes: 1024 }
const post = (url: URL, options = {}) => postWebhook(url, { 'webhook-id': 'msg_1' }, '{"a":1}', { ...OPTIONS, ...options })

t.test('what an answer makes of an attempt: 2xx delivered, 410 gone, others failed with their start, redirects not followed', async (t) => {
  let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {}
  const url = await serve(t, (request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      seen = { method: request.method, headers: request.headers, body }
      const path = new URL(request.url ?? '/', 'http://x').searchParams.get('answer') ?? '204'
      if (path === 'redirect') response.writeHead(307, { location: 'https://elsewhere.example/hook' }).end()
      else if (path === '503') response.writeHead(503, { 'retry-after': '30' }).end('busy\r\n\tnow \u0007 please')
      else response.writeHead(Number(path)).end(path === '200' ? 'ok' : '')
    })
  })
  const at = (answer: string): URL => new URL(`${url.href}?answer=${answer}`)
  t.match(await post(at('204')), { outcome: 'delivered', status: 204, error: null })
  t.match(seen, { method: 'POST', headers: { 'webhook-id': 'msg_1', 'content-length': '7' }, body: '{"a":1}' })
  t.match(await post(at('200')), { outcome: 'delivered', status: 200 })
  t.match(await post(at('410')), { outcome: 'gone', status: 410, error: 'HTTP 410' })
  t.match(await post(at('503')), { outcome: 'failed', status: 503, error: 'HTTP 503: busy now please', retryAfter: '30' })
  t.match(await post(at('redirect')), { outcome: 'failed', status: 307, error: 'HTTP 307: redirect to https://elsewhere.example/hook not followed' })
  const result = await post(at('500'))
  t.match(result, { outcome: 'failed', status: 500, error: 'HTTP 500' })
  t.ok(result.durationMs >= 0 && result.durationMs < 300)
})

t.test('no answer in time is a timeout; a huge or slow answer is cut at its bound, its status kept; a refused connection is an error', async (t) => {
  const url = await serve(t, (request, response) => {
    const answer = new URL(request.url ?? '/', 'http://x').searchParams.get('answer')
    request.resume()
    if (answer === 'never') return
    if (answer === 'huge') {
      response.writeHead(200)
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const write = (): void => { while (response.write(chunk)) { /* until the socket pushes back */ } }
      response.on('drain', write)
      write()
      return
    }
    response.writeHead(500)
    response.write('slow')
  })
  let result = await post(new URL(`${url.href}?answer=never`))
  t.match(result, { outcome: 'timeout', status: null, error: 'no answer within 300 ms' })
  t.ok(result.durationMs >= 290)
  result = await post(new URL(`${url.href}?answer=huge`), { timeoutMs: 5_000 })
  t.match(result, { outcome: 'delivered', status: 200 })
  t.ok(result.durationMs < 2_000, 'cut after the bound, not read to the end')
  t.match(await post(new URL(`${url.href}?answer=slow`)), { outcome: 'failed', status: 500, error: 'HTTP 500: slow' }, 'a body that never ends is cut at the deadline')

  const closed = createTcpServer()
  closed.listen(0, '127.0.0.1')
  await once(closed, 'listening')
  const port = (closed.address() as AddressInfo).port
  closed.close()
  t.match(await post(new URL(`http://127.0.0.1:${port}/`)), { outcome: 'error', status: null, error: /ECONNREFUSED/ })
})

t.test('an attempt is cut at once when the deliverer stops', async (t) => {
  const sockets: Socket[] = []
  const server = createTcpServer((socket) => sockets.push(socket))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { for (const socket of sockets) socket.destroy(); server.close() })
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  const stop = new AbortController()
  const pending = post(url, { timeoutMs: 10_000, signal: stop.signal })
  setTimeout(() => stop.abort(), 50)
  t.match(await pending, { outcome: 'error', status: null, error: 'stopped before an answer came' })
  const stopped = new AbortController()
  stopped.abort()
  t.match(await post(url, { signal: stopped.signal }), { outcome: 'error', error: 'stopped before an answer came' })
})

t.test('https endpoints go through node:https', async (t) => {
  // No certificate here to trust: the TLS failure is the proof that TLS was spoken.
  const url = await serve(t, (_request, response) => { response.end() })
  t.match(await post(new URL(url.href.replace('http:', 'https:'))), { outcome: 'error', status: null })
})
