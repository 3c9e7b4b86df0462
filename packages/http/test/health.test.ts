import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { openFileBlobStore, openMemoryEventStore, openSqliteEventStore, type EventStore } from '@waybill/event-store'
import { ReadModelWriter, type ProjectorStatus } from '@waybill/projector'
import { buildApp, type AppOptions } from '../src/index.js'
import { isOutOfSpace, spaceWatch } from '../src/readiness/space.js'
import { openReadSide } from './helpers/read-side.js'

interface Teardown { teardown(fn: () => unknown): void }

/** The real app over `store` in a fresh data dir (made by `prepare` first, if given), its log lines kept. */
async function appOver(t: Teardown, store: EventStore, options: Partial<AppOptions> = {}, prepare?: (dataDir: string) => void) {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-health-'))
  prepare?.(dataDir)
  const readSide = openReadSide(dataDir)
  const logs: Array<Record<string, unknown>> = []
  const app = await buildApp({
    store, blobs: await openFileBlobStore(join(dataDir, 'blobs')), readModel: readSide.readModel, audit: readSide.audit,
    dataDir, logLevel: 'info', isSecure: () => true,
    logDestination: { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>) } },
    ...options,
  })
  t.teardown(async () => {
    await app.close()
    readSide.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  // Booted before the test times an answer: loading the routes takes a while on a busy machine.
  await app.ready()
  const readyz = async () => {
    const answer = await app.inject({ method: 'GET', url: '/readyz' })
    return { status: answer.statusCode, body: answer.json<{ status?: string; code?: string; detail?: string }>(), headers: answer.headers }
  }
  return { app, dataDir, logs, readyz }
}

/** Readiness reuses an answer for a second: wait past it. */
const nextAnswer = () => new Promise((resolve) => setTimeout(resolve, 1_050))

t.test('/readyz is 200 ready on a healthy instance; /healthz stays liveness only', async (t) => {
  const { app, readyz } = await appOver(t, openMemoryEventStore())
  t.match(await readyz(), { status: 200, body: { status: 'ready' } })
  t.same((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' })
})

// A store that accepts the call and never answers: what a wedged cluster node looks like to a
// client that gives reads no deadline.
t.test('/readyz answers 503 "event store unreachable" within its own deadline when the store never answers', async (t) => {
  const store = { ...openMemoryEventStore(), headPosition: () => new Promise<never>(() => undefined) }
  const { app, readyz, logs } = await appOver(t, store, { readiness: { storeTimeoutMs: 150 } })
  const started = Date.now()
  const answer = await readyz()
  t.equal(answer.status, 503)
  t.match(answer.headers['retry-after'], /^\d+$/)
  t.match(answer.body, { code: 'server_error', detail: 'Not ready: event store unreachable' }, 'the reason, said to the prober')
  t.ok(Date.now() - started < 1_500, `answered in ${Date.now() - started} ms (the deadline is 150 ms)`)
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness does not touch the store')
  t.ok(logs.some((line) => line['readiness'] === 'not_ready' && line['level'] === 40), 'the change is logged once, at warn')
  const metrics = await app.metrics.render()
  t.match(metrics, /^waybill_ready 0$/m)
  t.match(metrics, /^waybill_readiness_failing\{check="store"\} 1$/m)
  t.match(metrics, /^waybill_readiness_failing\{check="disk"\} 0$/m)
  t.notMatch(metrics, /waybill_errors_total\{code="server_error"/, 'a readiness answer is not counted as an error')
})

t.test('/readyz is 503 "disk full" while the data dir has less free space than the floor', async (t) => {
  const { readyz } = await appOver(t, openMemoryEventStore(), { readiness: { floorBytes: Number.MAX_SAFE_INTEGER } })
  const answer = await readyz()
  t.equal(answer.status, 503)
  t.equal(answer.body.detail, 'Not ready: disk full')
})

t.test('a read model from a newer Waybill: 503 with the reason, no path; 200 again once it is readable', async (t) => {
  let path = ''
  const { readyz, dataDir } = await appOver(t, openMemoryEventStore(), {}, (dir) => {
    // Another version wrote the read model this process is about to open.
    const writer = new ReadModelWriter(join(dir, 'read-model.sqlite'))
    path = writer.path
    writer.close()
    const db = new Sqlite(path)
    db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`).run()
    db.close()
  })
  const answer = await readyz()
  t.equal(answer.status, 503)
  t.equal(answer.body.detail, "Not ready: read model unreadable: schema version 99, newer than this Waybill's 4")
  t.notMatch(JSON.stringify(answer.body), dataDir, 'no path is said')
  // The operator rebuilds (or upgrades): the file is readable again, and so is the instance, without a restart.
  const db = new Sqlite(path)
  db.prepare(`UPDATE meta SET value = '4' WHERE key = 'schema_version'`).run()
  db.close()
  await nextAnswer()
  t.same((await readyz()).body, { status: 'ready' })
})

t.test('a stuck projector: 503 once it has failed for the allowed time, 200 by itself once it moves', async (t) => {
  const projection = { path: null, checkpoint: '5/5', head: '9/9', lag: 4, appliedEvents: 5, lastError: 'database or disk is full' }
  let status: ProjectorStatus | null = null
  const { app, readyz } = await appOver(t, openMemoryEventStore(), { projector: { status: () => status }, readiness: { stallAfterMs: 500 } })
  t.equal((await readyz()).status, 200, 'nothing reported yet: starting, not stuck')
  status = { orders: { ...projection, state: 'retrying' }, audit: null }
  await nextAnswer()
  const stuck = await readyz()
  t.equal(stuck.status, 503)
  t.match(stuck.body.detail, /^Not ready: projector: orders projection failing for \d+ s$/)
  t.notMatch(stuck.body.detail, /disk is full/, 'the error\'s own text stays in the log')
  t.match(await app.metrics.render(), /^waybill_readiness_failing\{check="projector"\} 1$/m)
  status = { orders: { ...projection, state: 'caught_up', checkpoint: '9/9', lag: 0, lastError: null }, audit: null }
  await nextAnswer()
  t.same((await readyz()).body, { status: 'ready' })
})

t.test('the space watch: an append that fails for lack of space holds "full" until an append succeeds or a probe write fits', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-space-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const store = await openSqliteEventStore({ path: join(root, 'events.sqlite'), writer: 'inline' })
  t.teardown(() => store.close())
  // The probe writes into this directory, which does not exist yet: no write fits there.
  const dataDir = join(root, 'data')
  const space = spaceWatch(dataDir)
  const appends = space.appends(store)
  const append = (stream: string) => appends.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'OrderAdded', data: { pad: 'x'.repeat(2000) } }])
  // The pages the file has may still take a few events; sooner or later one needs a new page.
  const fill = async (): Promise<unknown> => {
    await store.setMaxPageCount(1)
    for (let i = 0; i < 500; i += 1) {
      const failure = await append(`order-a-${crypto.randomUUID()}`).then(() => null, (error: unknown) => error)
      if (failure !== null) return failure
    }
    return null
  }
  t.equal(await space.full(), false)
  const failure = await fill()
  t.ok(isOutOfSpace(failure), `the store said so: ${String(failure)}`)
  t.equal(await space.full(), true, 'full after a SQLITE_FULL')
  t.equal(await space.full(), true, 'and still, while no write fits')
  await store.setMaxPageCount(1 << 30)
  await append('order-a-2')
  t.equal(await space.full(), false, 'a successful append clears it')
  t.ok(isOutOfSpace(await fill()))
  t.equal(await space.full(), true)
  await mkdir(dataDir)
  t.equal(await space.full(), false, 'a probe write that fits clears it, with no append needed (a balancer sends none to an instance not ready)')
  space.imageFailed(Object.assign(new Error('image storage: ENOSPC'), { cause: Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }) }))
  t.equal(await space.full(), false, 'an image write failed, and the probe fits at once')
  t.equal(isOutOfSpace(new Error('the event store did not answer within 2000 ms')), false, 'a timeout is not a full disk')
  t.equal(isOutOfSpace('SQLITE_FULL'), false, 'only errors are read')
})
