import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import { Agent, request } from 'undici'
import { openFileBlobStore, openSqliteEventStore } from '@waybill/event-store'
import { startServer } from '../src/index.js'
import { addBody, orderId } from './fixtures.js'
import { openReadSide } from './helpers/read-side.js'

t.test('close lets an in-flight request finish and takes no new work', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-shutdown-'))
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') })
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  const readSide = await openReadSide(dataDir)
  const server = await startServer({ dataDir, httpsPort: 0, httpPort: 0, host: '127.0.0.1', tls: null, trustProxy: [], logLevel: 'silent' },
    { store, blobs, subjectKeys: readSide.subjectKeys, readModel: readSide.readModel, audit: readSide.audit })
  const ca = await readFile(server.certPath, 'utf8')
  const slowAgent = new Agent({ connect: { ca } })
  const otherAgent = new Agent({ connect: { ca } })
  t.teardown(async () => { await slowAgent.close(); await otherAgent.close(); await readSide.close(); await store.close(); await rm(dataDir, { recursive: true, force: true }) })
  const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  const headers = { 'service-api-key': key, 'content-type': 'application/json' }

  // An open keep-alive connection for the "new request during shutdown".
  t.equal((await request(`${server.httpsUrl}/ping`, { headers, dispatcher: otherAgent })).statusCode, 200)

  const text = JSON.stringify(addBody(orderId('drain')))
  const body = new PassThrough()
  const inFlight = request(`${server.httpsUrl}/v1/deliveries`, { method: 'POST', headers, body, dispatcher: slowAgent })
  body.write(text.slice(0, 20))
  await delay(300)
  const closing = server.close()
  let closed = false
  void closing.then(() => { closed = true })
  await delay(200)

  const late = await request(`${server.httpsUrl}/ping`, { headers, dispatcher: otherAgent }).then(
    (response) => ({ status: response.statusCode }),
    (error: unknown) => ({ status: 0, error: (error as Error).message }),
  )
  t.not(late.status, 200, 'no new request is served once closing started')
  if (late.status !== 0) t.equal(late.status, 503)

  t.notOk(closed, 'close waits for the in-flight request')
  body.end(text.slice(20))
  const response = await inFlight
  t.equal(response.statusCode, 201, 'the in-flight request completes')
  await response.body.text()
  await closing
  t.ok(closed)
})
