import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openFileBlobStore, openMemoryEventStore } from '@waybill/event-store'
import { buildApp } from '../src/index.js'
import { openReadSide } from './helpers/read-side.js'

// A store that accepts the call and never answers: what a wedged cluster node looks like to a
// client that gives reads no deadline.
t.test('/readyz answers 503 within its own deadline when the store never answers', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-health-'))
  const store = { ...openMemoryEventStore(), headPosition: () => new Promise<never>(() => undefined) }
  const readSide = await openReadSide(dataDir)
  const app = await buildApp({
    store, blobs: await openFileBlobStore(join(dataDir, 'blobs')), subjectKeys: readSide.subjectKeys, readModel: readSide.readModel, audit: readSide.audit,
    dataDir, logLevel: 'silent', isSecure: () => true, readyTimeoutMs: 150,
  })
  t.teardown(async () => {
    await app.close()
    await readSide.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const started = Date.now()
  const response = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(response.statusCode, 503)
  t.match(response.headers['retry-after'], /^\d+$/)
  t.equal(response.json().code, 'server_error')
  t.ok(Date.now() - started < 1_500, `answered in ${Date.now() - started} ms (the deadline is 150 ms)`)
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness does not touch the store')
})
