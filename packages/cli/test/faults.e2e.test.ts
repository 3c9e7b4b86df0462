import { execFileSync } from 'node:child_process'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { streamNameFor } from '@waybill/domain'
import { openFileBlobStore, openSqliteEventStore, type SqliteEventStore } from '@waybill/event-store'
import { boundedAppends, startServer } from '@waybill/http'
import { AuditLog, HeadStore, ReadModel } from '@waybill/projector'
import { addBody, clientFor, completeBody, type Answer, type Client } from './https-client.js'
import { integrityCheck } from './store-checks.js'
import { serve } from './waybill-process.js'

t.setTimeout(150_000)
const env = (dir: string): Record<string, string> => ({ WAYBILL_DATA_DIR: dir, LOG_LEVEL: 'fatal', WAYBILL_RATE_LIMIT: '1000000' })

async function tempDir(t: { teardown(fn: () => unknown): void }, name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `waybill-${name}-`))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

function isRetryable503(answer: Answer): boolean {
  const problem = JSON.parse(answer.text) as { code?: string; status?: number; type?: string; title?: string }
  return answer.status === 503 && problem.code === 'server_error' && problem.status === 503 &&
    typeof problem.type === 'string' && typeof problem.title === 'string' &&
    /^application\/problem\+json/.test(String(answer.headers['content-type'])) &&
    Number(answer.headers['retry-after']) >= 1
}

/** Fills the file system holding `dir` to the last byte; resolves with the filler's path. */
async function fillDisk(dir: string): Promise<string> {
  const path = join(dir, 'filler')
  const handle = await open(path, 'w')
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
      const chunk = Buffer.alloc(size, 1)
      for (;;) {
        try {
          await handle.write(chunk)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    await handle.close().catch(() => {})
  }
  return path
}

/**
 * The disk-full scenario, whatever made the disk full: acknowledged events before and during
 * the fault are stored; once writes fail, answers are 503 server_error with Retry-After; after
 * `free()` the same server (no restart) takes the refused events on an exact retry.
 */
async function diskFullScenario(t: Tap, client: Client, fill: () => Promise<void>, free: () => Promise<void>, readStored: () => Promise<Set<string>>,
  readiness?: { whileFull(): Promise<void>; afterFree(): Promise<void> }): Promise<void> {
  const acked: string[] = []
  for (let i = 0; i < 5; i += 1) {
    const id = `before-${i}`
    t.equal((await client.post(addBody(id))).status, 201)
    acked.push(id)
  }
  await fill()
  const refused: unknown[] = []
  let other = 0
  // Room already in the WAL may take a few more events (they are durable); sooner or later
  // a write needs a new page and fails.
  for (let i = 0; i < 400 && refused.length < 3; i += 1) {
    const id = `full-${i}`
    const body = i % 2 === 0 ? addBody(id) : completeBody(`before-${i % 5}`)
    const answer = await client.post(body)
    if (answer.status === 201) acked.push(id)
    else if (answer.status === 202 || answer.status === 409) {
      // a completion of an order already completed in an earlier round: not a write
    } else if (isRetryable503(answer)) refused.push(body)
    else {
      other += 1
      t.fail(`unexpected answer on a full disk: ${answer.status} ${answer.text}`)
    }
  }
  t.equal(other, 0, 'only 2xx or 503 server_error + Retry-After on a full disk')
  t.ok(refused.length >= 1, `${refused.length} requests refused with 503 while the disk is full`)
  await readiness?.whileFull()
  await free()
  // Before any write is sent again: a balancer sends none to an instance that is not ready.
  await readiness?.afterFree()
  for (const body of refused) {
    const answer = await client.post(body)
    t.ok(answer.status === 201 || answer.status === 202, `refused event taken after space returns, without a restart (${answer.status})`)
  }
  t.equal((await client.post(addBody('after'))).status, 201, 'new events accepted again')
  acked.push('after')
  const stored = await readStored()
  t.same(acked.filter((id) => !stored.has(id)), [], 'every acknowledged ORDER_ADD is stored')
}
type Tap = { equal: typeof t.equal; ok: typeof t.ok; same: typeof t.same; fail: typeof t.fail }

/** GET /readyz until `done` says so (readiness reuses an answer for a second), for 10 s at most. */
async function readyzUntil(client: Client, done: (answer: Answer) => boolean): Promise<Answer> {
  let answer = await client.get('/readyz', null)
  for (let i = 0; i < 50 && !done(answer); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    answer = await client.get('/readyz', null)
  }
  return answer
}

async function storedOrders(path: string, ids: readonly string[]): Promise<Set<string>> {
  const store = await openSqliteEventStore({ path })
  try {
    const found = new Set<string>()
    for (const id of ids) if ((await store.readStream(streamNameFor('sandbox', id))).length > 0) found.add(id)
    return found
  } finally {
    await store.close()
  }
}

function tryMountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

t.test('disk full: 503 server_error with Retry-After, no false acknowledgment, recovery without restart', async (t) => {
  const mountPoint = await tempDir(t, 'tmpfs')
  if (tryMountTmpfs(mountPoint, '16m')) {
    t.teardown(() => { execFileSync('umount', ['-l', mountPoint]) })
    const dir = join(mountPoint, 'data')
    const server = await serve(env(dir))
    t.teardown(() => server.stop())
    const client = await clientFor(server.httpsUrl, dir)
    t.teardown(() => client.close())
    let filler = ''
    const ids = Array.from({ length: 400 }, (_, i) => `full-${i}`).concat(['after', ...[0, 1, 2, 3, 4].map((i) => `before-${i}`)])
    const metricsUrl = /metrics at (http:\/\/[^\s"]+)/.exec(server.output())?.[1] ?? ''
    await diskFullScenario(t, client,
      async () => { filler = await fillDisk(mountPoint) },
      async () => rm(filler),
      async () => storedOrders(join(dir, 'events.sqlite'), ids),
      {
        async whileFull() {
          const answer = await readyzUntil(client, (a) => a.status === 503)
          t.equal(answer.status, 503, '/readyz is not ready while writes fail for a full disk')
          t.match(JSON.parse(answer.text), { code: 'server_error', detail: 'Not ready: disk full' }, 'and says why')
          t.equal((await client.get('/healthz', null)).status, 200, '/healthz stays liveness only')
          const metrics = await (await fetch(metricsUrl)).text()
          t.match(metrics, /^waybill_ready 0$/m)
          t.match(metrics, /^waybill_readiness_failing\{check="disk"\} 1$/m)
        },
        async afterFree() {
          const answer = await readyzUntil(client, (a) => a.status === 200)
          t.equal(answer.status, 200, '/readyz is ready again once space is freed, without a restart and without a write')
        },
      })
    t.equal(await server.stop(), 0)
    t.equal(integrityCheck(join(dir, 'events.sqlite')), 'ok')
    return
  }
  // No tmpfs here (not root, or no mount in this sandbox): the same scenario with SQLite's own
  // cap on the file size, on an in-process server over the same store. Readiness is not asked:
  // a page cap is no full disk, and the probe write readiness makes to see room come back fits.
  t.comment('mount -t tmpfs is not available: capping the database with max_page_count instead')
  const dir = await tempDir(t, 'maxpages')
  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') })
  const readModel = new ReadModel(dir)
  const log = new AuditLog(dir)
  const heads = HeadStore.inDataDir(dir)
  const server = await startServer({ dataDir: dir, httpsPort: 0, httpPort: 0, host: '127.0.0.1', tls: null, trustProxy: [], logLevel: 'silent' },
    { store, blobs: await openFileBlobStore(join(dir, 'blobs')), readModel, audit: { log, heads } })
  t.teardown(async () => { await server.close(); readModel.close(); log.close(); heads.close(); await store.close() })
  const client = await clientFor(server.httpsUrl, dir)
  t.teardown(() => client.close())
  await diskFullScenario(t, client,
    async () => { await store.setMaxPageCount(1) },
    async () => { await store.setMaxPageCount(1 << 30) },
    async () => {
      const found = new Set<string>()
      for (const id of Array.from({ length: 400 }, (_, i) => `full-${i}`).concat(['after', 'before-0', 'before-1', 'before-2', 'before-3', 'before-4'])) {
        if ((await store.readStream(streamNameFor('sandbox', id))).length > 0) found.add(id)
      }
      return found
    })
})

t.test('store locked by another process: every append answers 503 within the bound; the queue is capped; recovery', async (t) => {
  const dir = await tempDir(t, 'locked')
  const server = await serve(env(dir))
  t.teardown(() => server.stop())
  const client = await clientFor(server.httpsUrl, dir, { connections: 64 })
  t.teardown(() => client.close())
  t.equal((await client.post(addBody('warm'))).status, 201)

  const blocker = new Database(join(dir, 'events.sqlite'), { timeout: 100 })
  blocker.exec('BEGIN IMMEDIATE')
  let released = false
  const release = (): void => { if (!released) { released = true; blocker.exec('ROLLBACK'); blocker.close() } }
  t.teardown(release)

  const started = performance.now()
  const bodies = Array.from({ length: 40 }, (_, i) => addBody(`locked-${i}`))
  const answers = await Promise.all(bodies.map(async (body) => {
    const answer = await client.post(body)
    return { answer, ms: performance.now() - started }
  }))
  const slowest = Math.max(...answers.map((a) => a.ms))
  t.ok(answers.every((a) => isRetryable503(a.answer)), 'all 503 server_error with Retry-After')
  t.ok(slowest < 4500, `all answered within the 2 s append timeout plus slack (slowest ${slowest.toFixed(0)} ms)`)
  t.equal((await client.get('/ping')).status, 200, 'reads and key checks still work')
  release()

  // The refused events either landed late (their append was queued) or not at all; an exact
  // retry answers 201 either way, and stores each once.
  for (const body of bodies) t.equal((await client.post(body)).status, 201)
  t.equal(await server.stop(), 0)
  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') })
  t.teardown(() => store.close())
  let events = 0
  for (let i = 0; i < bodies.length; i += 1) events += (await store.readStream(streamNameFor('sandbox', `locked-${i}`))).length
  t.equal(events, bodies.length, 'each refused-then-retried event stored exactly once')
})

t.test('boundedAppends: appends past the cap fail at once, the others at the timeout; the queue never passes the cap', async (t) => {
  const dir = await tempDir(t, 'bounded')
  const inner: SqliteEventStore = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), busyTimeoutMs: 1500, writer: 'worker' })
  t.teardown(() => inner.close())
  const store = boundedAppends(inner, { maxPendingAppends: 4, appendTimeoutMs: 300 })
  await store.appendToStream('order-a-warm', [{ id: crypto.randomUUID(), type: 'OrderAdded', data: {} }])
  const blocker = new Database(join(dir, 'events.sqlite'), { timeout: 100 })
  blocker.exec('BEGIN IMMEDIATE')
  const started = performance.now()
  const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) =>
    store.appendToStream(`order-a-${i}`, [{ id: crypto.randomUUID(), type: 'OrderAdded', data: {} }]).catch((error: unknown) => {
      throw Object.assign(error as Error, { ms: performance.now() - started })
    })))
  blocker.exec('ROLLBACK')
  blocker.close()
  const failures = results.map((r) => (r.status === 'rejected' ? r.reason as Error & { ms: number } : null))
  t.equal(failures.filter((f) => f !== null).length, 10, 'nothing completes while the lock is held')
  const immediate = failures.filter((f) => f !== null && /already wait/.test(f.message))
  const timedOut = failures.filter((f) => f !== null && /did not answer within 300 ms/.test(f.message))
  t.equal(immediate.length, 6, 'six refused at once (cap of four pending)')
  t.ok(immediate.every((f) => f!.ms < 250), 'refused without waiting')
  t.equal(timedOut.length, 4)
  t.ok(timedOut.every((f) => f!.ms >= 290 && f!.ms < 1400), 'the others answered at the timeout')
})

t.test('SIGTERM under load: in-flight requests finish, later ones get 503 or no connection, every acknowledged event stored', async (t) => {
  const dir = await tempDir(t, 'sigterm')
  const server = await serve(env(dir))
  const client = await clientFor(server.httpsUrl, dir, { connections: 16 })
  t.teardown(() => client.close())
  const acked: string[] = []
  const statuses = new Map<number, number>()
  let stopAt = Infinity
  let cutOff = 0
  const loops = Array.from({ length: 16 }, async (_, c) => {
    for (let n = 0; performance.now() < stopAt; n += 1) {
      const id = `c${c}-${n}`
      try {
        const answer = await client.post(addBody(id))
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        if (answer.status === 201) acked.push(id)
        else if (!isRetryable503(answer)) t.fail(`unexpected ${answer.status}: ${answer.text}`)
      } catch {
        cutOff += 1
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })
  await new Promise((resolve) => setTimeout(resolve, 800))
  const exit = server.stop()
  stopAt = performance.now() + 1500
  await Promise.all(loops)
  t.equal(await exit, 0, 'exits cleanly')
  t.ok(acked.length > 0, `${acked.length} acknowledged; answers by status ${JSON.stringify([...statuses])}; ${cutOff} requests found no listener`)
  const stored = await storedOrders(join(dir, 'events.sqlite'), acked)
  t.equal(stored.size, acked.length, 'every acknowledged event is in the store')
  t.equal(integrityCheck(join(dir, 'events.sqlite')), 'ok')
})
