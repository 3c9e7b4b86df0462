import { connect, type Socket } from 'node:net'
import t from 'tap'
import { startTestServer } from '../harness.js'

/** A plain-HTTP request on a raw socket that reads the answer and never closes its side. */
function holdPlain(port: number, request: string): Promise<{ socket: Socket; answer: Promise<string>; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(request)
      let text = ''
      let answered: (value: string) => void = () => undefined
      const answer = new Promise<string>((done) => { answered = done })
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1')
        if (/\r\n\r\n[\s\S]*\}$/.test(text)) answered(text)
      })
      // The server's side going (its FIN, or a reset), whatever this side does.
      const closed = new Promise<number>((done) => {
        socket.once('end', () => done(Date.now()))
        socket.once('close', () => done(Date.now()))
        socket.on('error', () => undefined)
      })
      resolve({ socket, answer, closed })
    })
    socket.once('error', reject)
  })
}

const REQUEST = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'

t.test('answered plain sockets that their client never closes are closed by the server; TLS clients are served at once', async (t) => {
  // As the review found it: 50 connections at most, and one client holding refused plain sockets.
  const s = await startTestServer(t, { maxConnections: 50, connectionLimits: { plainConnections: 12 } })
  for (const port of [s.server.httpsPort, s.server.httpPort]) {
    const held = await Promise.all(Array.from({ length: 12 }, () => holdPlain(port, REQUEST)))
    t.teardown(() => { for (const { socket } of held) socket.destroy() })
    const answers = await Promise.all(held.map(({ answer }) => answer))
    const answeredAt = Date.now()
    t.equal(answers.filter((text) => text.startsWith('HTTP/1.1 403 ')).length, 12, `port ${port}: 12 refusals`)
    // Past the plain cap, more plain connections are closed unanswered: they hold nothing either.
    const extra = await Promise.all(Array.from({ length: 40 }, () => holdPlain(port, REQUEST)))
    t.teardown(() => { for (const { socket } of extra) socket.destroy() })
    const started = Date.now()
    t.equal((await s.send('GET', '/healthz', { key: null })).status, 200, `port ${port}: a TLS client is served while they are held`)
    t.ok(Date.now() - started < 2_000, `... at once (${Date.now() - started} ms)`)
    const closedAt = await Promise.all([...held, ...extra].map(({ closed }) => closed))
    t.ok(Math.max(...closedAt) - answeredAt < 5_000, `port ${port}: the server closed every one within seconds (${Math.max(...closedAt) - answeredAt} ms)`)
    // Each answered one goes entirely after its linger (1 s), though its client still holds its side.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const open = await s.server.openConnections()
    t.ok(open.https <= 1 && open.plain === 0, `port ${port}: the server holds none of them (${JSON.stringify(open)})`)
  }
  // A courier's key sent in the clear while the plain port was held is still seen and revoked.
  const courier = await s.newKey('acme', ['orders:add'])
  const plain = await s.sendPlain('GET', '/ping', { key: courier })
  t.equal(plain.json.code, 'insecure_connection')
  t.equal((await s.send('GET', '/ping', { key: courier })).json.code, 'invalid_api_key', 'and revoked')
})

t.test('one address holds at most its share of each listener; the rest of its connections are closed at once', async (t) => {
  const s = await startTestServer(t, { connectionLimits: { perAddress: 5 } })
  const sockets = await Promise.all(Array.from({ length: 8 }, () => new Promise<Socket>((resolve) => {
    const socket = connect({ port: s.server.httpsPort, host: '127.0.0.1' }, () => resolve(socket))
    socket.on('error', () => undefined)
  })))
  t.teardown(() => { for (const socket of sockets) socket.destroy() })
  const closed = await Promise.all(sockets.map((socket) => new Promise<boolean>((resolve) => {
    if (socket.destroyed) resolve(true)
    socket.once('close', () => resolve(true))
    setTimeout(() => resolve(false), 500)
  })))
  t.equal(closed.filter(Boolean).length, 3, 'the three past the cap were closed')
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal((await s.send('GET', '/healthz', { key: null })).status, 200, 'once they are gone, the address is served again')
})

t.test('a key split across two chunks of a chunked plain body is still revoked', async (t) => {
  const s = await startTestServer(t)
  const key = await s.newKey('acme', ['orders:add'])
  const body = `{"key":"${key}"}`
  const cut = 30
  const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
  const { answer } = await holdPlain(s.server.httpPort,
    `POST /v1/deliveries HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n${chunk(body.slice(0, cut))}${chunk(body.slice(cut))}0\r\n\r\n`)
  t.match(await answer, /revoked and replaced/)
  t.equal((await s.send('GET', '/ping', { key })).json.code, 'invalid_api_key')
})

t.test('a key sent after the plain answer (a body past the idle bound) is revoked too', async (t) => {
  const s = await startTestServer(t)
  const key = await s.newKey('acme', ['orders:add'])
  const { socket, answer, closed } = await holdPlain(s.server.httpPort, 'POST /v1/deliveries HTTP/1.1\r\nHost: localhost\r\nContent-Length: 120\r\n\r\n')
  t.match(await answer, /No API key was seen/)
  socket.write(`{"key":"${key}"}`)
  await closed
  for (let i = 0; i < 50 && (await s.send('GET', '/ping', { key })).status === 200; i += 1) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal((await s.send('GET', '/ping', { key })).json.code, 'invalid_api_key')
})
