import { connect as connectTcp } from 'node:net'
import { connect as connectTls, type ConnectionOptions } from 'node:tls'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { generateApiKey } from '@waybill/keys'
import { addBody, completeBody, orderId } from './fixtures.js'
import { startTestServer } from './harness.js'

/** Whether a TLS handshake with these client options succeeds against the server. */
function handshake(port: number, ca: string, options: ConnectionOptions): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connectTls({ host: '127.0.0.1', port, ca, servername: 'localhost', ...options }, () => {
      const protocol = socket.getProtocol()
      socket.end()
      resolve(protocol)
    })
    socket.on('error', () => resolve(null))
  })
}

t.test('TLS: 1.3 and 1.2 with AEAD suites only; no CBC, no SHA-1, nothing older', async (t) => {
  const s = await startTestServer(t)
  const port = Number(new URL(s.server.httpsUrl).port)
  const ca = await readFile(s.server.certPath, 'utf8')
  t.equal(await handshake(port, ca, {}), 'TLSv1.3')
  t.equal(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), 'TLSv1.2')
  t.equal(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA' }), null, 'CBC with SHA-1 is refused')
  t.equal(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-SHA384' }), null, 'CBC with SHA-384 too')
  t.equal(await handshake(port, ca, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }), null, 'TLS 1.1 is refused')
})

t.test('headers: HSTS, nosniff, a CSP that allows nothing, no-store on order data; /docs has its own strict CSP', async (t) => {
  const s = await startTestServer(t)
  const ping = await s.send('GET', '/ping')
  t.match(ping.headers['strict-transport-security'], /^max-age=63072000; includeSubDomains/)
  t.equal(ping.headers['x-content-type-options'], 'nosniff')
  t.match(ping.headers['content-security-policy'], /default-src 'none'/)
  t.match(ping.headers['content-security-policy'], /frame-ancestors 'none'/)
  const fixed = {
    'content-security-policy': "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
    'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin', 'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=63072000; includeSubDomains', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY',
  }
  const unknownPath = await s.send('GET', '/v1/no-such-thing')
  const noKey = await s.send('GET', '/v1/orders', { key: null })
  for (const [what, answer] of [['ping', ping], ['404', unknownPath], ['401', noKey]] as const) {
    for (const [name, value] of Object.entries(fixed)) t.equal(answer.headers[name], value, `${what}: ${name}`)
  }
  const added = await s.json('/v1/deliveries', addBody(orderId()))
  t.equal(added.status, 201)
  t.equal(added.headers['cache-control'], 'no-store', 'answers under /v1/ are never cached')
  const refused = await s.json('/v1/deliveries', {})
  t.equal(refused.headers['cache-control'], 'no-store', 'error answers under /v1/ too')
  // Decided on the answer, not on the URL as spelled: a percent-encoded path reaches the same
  // route and gets the same header; images (personal data) are never cached either.
  const id = orderId('img')
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
  t.equal((await s.json('/v1/deliveries', completeBody(id))).status, 202)
  await s.project()
  for (const path of [`/v1/orders/${id}/pod`, `/v%31/orders/${id}/pod`, `/%761/orders/${id}`, `/v1/orders/${id}/signature`]) {
    const answer = await s.send('GET', path)
    t.equal(answer.status, 200, path)
    t.equal(answer.headers['cache-control'], 'no-store', `${path}: no-store`)
  }
  const docs = await s.send('GET', '/docs', { key: null })
  t.equal(docs.status, 200)
  const csp = String(docs.headers['content-security-policy'])
  t.match(csp, /frame-ancestors 'none'/)
  t.match(csp, /form-action 'none'/)
  t.notMatch(csp, /https:|validator\.swagger\.io|frame-ancestors 'self'/, 'nothing from elsewhere')
})

t.test('a 5xx never carries its detail: a 500 says its title, a 503 that it passes', async (t) => {
  // An image whose blob is gone from the disk: the log names the blob, the client gets the title.
  const s = await startTestServer(t)
  const id = orderId('blob')
  t.equal((await s.json('/v1/deliveries', addBody(id))).status, 201)
  const completed = completeBody(id)
  t.equal((await s.json('/v1/deliveries', completed)).status, 202)
  await s.project()
  // The blob the completion recorded (the image sealed with the order's key), named in the history.
  const history = await s.send('GET', `/v1/orders/${id}/events`)
  const sha = (history.json as { events: Array<{ data: { pod?: { blob: string } } }> }).events[1]?.data.pod?.blob ?? ''
  t.match(sha, /^[0-9a-f]{64}$/)
  await rm(join(s.dataDir, 'blobs', sha.slice(0, 2), sha.slice(2)))
  const boom = await s.send('GET', `/v1/orders/${id}/pod`)
  t.equal(boom.status, 500)
  t.equal(boom.json.detail, 'Internal server error')
  t.notMatch(boom.text, new RegExp(`${sha}|blobs`))

  // A full disk (SQLite's own cap on the file): the append fails with SQLITE_FULL and the file's path.
  // (The cap takes effect once the pages the file has are used up.)
  await s.store.setMaxPageCount(1)
  let away = await s.json('/v1/deliveries', addBody(orderId('full')))
  for (let sent = 1; away.status === 201 && sent < 2000; sent += 1) away = await s.json('/v1/deliveries', addBody(orderId('full')))
  t.equal(away.status, 503)
  t.match(away.headers['retry-after'], /^\d+$/)
  t.notMatch(away.text, /SQLITE|full|events\.sqlite/i)
  t.notMatch(away.text, s.dataDir)
  await s.store.setMaxPageCount(1 << 30)
})

t.test('requests are limited per client address before any key is looked at', async (t) => {
  const s = await startTestServer(t, { addressLimit: { max: 5, windowMs: 60_000 } })
  const unknown = generateApiKey(false).key
  const answers = []
  for (let i = 0; i < 7; i += 1) answers.push(await s.send('GET', '/ping', { key: unknown }))
  t.same(answers.map((a) => a.status), [401, 401, 401, 401, 401, 429, 429])
  t.equal(answers[5]?.json.code, 'rate_limited')
  t.match(answers[5]?.headers['retry-after'], /^\d+$/)
  t.equal((await s.send('GET', '/ping')).status, 429, 'a good key from the same address waits too')
})

t.test('a stalled TLS handshake is cut, and connections past the cap are refused', async (t) => {
  const s = await startTestServer(t, { handshakeTimeoutMs: 300, maxConnections: 3 })
  const port = Number(new URL(s.server.httpsUrl).port)
  const closedAfter = await new Promise<number>((resolve) => {
    const started = performance.now()
    const socket = connectTcp(port, '127.0.0.1', () => socket.write(Buffer.from([0x16, 0x03, 0x01])))
    socket.on('close', () => resolve(performance.now() - started))
    socket.on('error', () => undefined)
  })
  t.ok(closedAfter < 5_000, `a handshake that never finishes is dropped (${Math.round(closedAfter)} ms)`)

  const held = await Promise.all(Array.from({ length: 3 }, () => new Promise<ReturnType<typeof connectTcp>>((resolve) => {
    const socket = connectTcp(s.server.httpPort, '127.0.0.1', () => resolve(socket))
  })))
  t.teardown(() => { for (const socket of held) socket.destroy() })
  const refused = await new Promise<boolean>((resolve) => {
    const socket = connectTcp(s.server.httpPort, '127.0.0.1', () => {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    })
    socket.on('data', () => resolve(false))
    socket.on('close', () => resolve(true))
    socket.on('error', () => resolve(true))
  })
  t.ok(refused, 'the fourth connection is closed without an answer')
})
