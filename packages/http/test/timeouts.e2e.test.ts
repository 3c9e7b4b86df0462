import { readFile } from 'node:fs/promises'
import { connect } from 'node:tls'
import t from 'tap'
import { startTestServer } from './harness.js'

t.test('a client that stalls in its headers is answered 408 and closed after 10 s', async (t) => {
  const s = await startTestServer(t)
  const socket = connect({ host: '127.0.0.1', port: s.server.httpsPort, ca: await readFile(s.server.certPath, 'utf8'), servername: 'localhost' })
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject))
  const started = Date.now()
  // The request line and one header, never the blank line that ends the headers.
  socket.write(`GET /ping HTTP/1.1\r\nHost: localhost\r\nService-Api-Key: ${s.testKey}\r\n`)
  let answer = ''
  socket.on('data', (chunk: Buffer) => { answer += chunk.toString() })
  await new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const waited = Date.now() - started
  t.ok(waited >= 9_000 && waited < 15_000, `closed after ${waited} ms`)
  t.match(answer, /^HTTP\/1\.1 408 /, 'with 408 Request Timeout')
  t.equal((await s.send('GET', '/ping')).status, 200, 'the server itself still answers')
})
