import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { eventIdFor, orderDecider, SCHEMA_VERSION, streamNameFor, type AddOrder } from '@waybill/domain'
import { handleCommand, openSqliteEventStore } from '@waybill/event-store'
import { KeyRing } from '@waybill/keys'
import { MAIN } from './waybill-process.js'

const RECORDER = fileURLToPath(new URL('./record-resolutions.mjs', import.meta.url))

/** A module of the `fastify` package, a `fastify-*` one or an `@fastify/*` one. */
const FASTIFY_MODULE = /\/node_modules\/(?:fastify(?:-[^/]+)?|@fastify\/[^/]+)\//
/** A module of the `typebox` package (~700 of them, ~0.2 s to load). */
const TYPEBOX_MODULE = /\/node_modules\/typebox\//

interface Traced {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Every URL the process resolved, in order. */
  readonly resolved: readonly string[]
}

/** Runs the built `waybill <args>` with a resolution hook that records every module it resolves. */
async function traced(dataDir: string, args: readonly string[]): Promise<Traced> {
  const log = join(dataDir, `resolved-${args.join('-')}.log`)
  const env = { PATH: process.env['PATH'] ?? '', WAYBILL_DATA_DIR: dataDir, WAYBILL_RESOLVED_LOG: log }
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--import', RECORDER, MAIN, ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr })
    })
  })
  const resolved = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean)
  return { code, stdout, stderr, resolved }
}

/** A data dir whose store holds one key and one order. */
async function seeded(t: { teardown(fn: () => Promise<void>): void }): Promise<{ dataDir: string; keyId: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-no-fastify-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const issued = await new KeyRing(store).issue({ account: 'sandbox', scopes: ['orders:add'], test: true })
  const data = { order_id: 'A-1', customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: '2025-05-02T00:00:00Z', event_date: '2025-05-01T00:00:00Z' } as const
  const add: AddOrder = { type: 'ORDER_ADD', data, eventId: eventIdFor('sandbox', 'ORDER_ADD', data) }
  await handleCommand(store, streamNameFor('sandbox', 'A-1'), orderDecider, add, {
    metadata: { received_at: '2025-05-01T00:00:01Z', key_id: issued.record.keyId, request_id: 'r', schema_version: SCHEMA_VERSION },
  })
  await store.close()
  return { dataDir, keyId: issued.record.keyId }
}

t.test('waybill keys list and waybill replay resolve no Fastify module and no TypeBox module', async (t) => {
  const { dataDir, keyId } = await seeded(t)
  for (const [args, output] of [[['keys', 'list'], new RegExp(`^${keyId}\\s+active`, 'm')], [['replay', 'A-1'], /hash chain: ok/]] as const) {
    const run = await traced(dataDir, args)
    const name = `waybill ${args.join(' ')}`
    t.equal(run.code, 0, `${name}: ${run.stderr}`)
    t.match(run.stdout, output, `${name} did its work`)
    // Without this the test would pass with a hook that records nothing.
    t.ok(run.resolved.some((url) => url.endsWith('/packages/event-store/dist/index.js')), `${name}: the hook saw the store being loaded`)
    t.same(run.resolved.filter((url) => FASTIFY_MODULE.test(url)), [], `${name} loads no Fastify module`)
    t.same(run.resolved.filter((url) => TYPEBOX_MODULE.test(url)), [], `${name} loads no TypeBox module (the configuration schema is data)`)
  }
})

t.test('waybill rebuild and waybill projector (its whole module graph) load no Fastify module and no TypeBox module', async (t) => {
  const { dataDir } = await seeded(t)
  for (const [args, output, loaded] of [
    [['rebuild'], /rebuilt orders: 1 events/, '/packages/http/dist/operation-status/index.js'],
    [['projector', '--help'], /Usage: waybill projector/, '/packages/http/dist/observability.js'],
  ] as const) {
    const run = await traced(dataDir, args)
    const name = `waybill ${args.join(' ')}`
    t.equal(run.code, 0, `${name}: ${run.stderr}`)
    t.match(run.stdout, output, `${name} did its work`)
    t.ok(run.resolved.some((url) => url.endsWith(loaded)), `${name} loads ${loaded} (serve's log format, metrics or status file)`)
    t.same(run.resolved.filter((url) => FASTIFY_MODULE.test(url)), [], `${name} loads no Fastify module`)
    t.same(run.resolved.filter((url) => TYPEBOX_MODULE.test(url)), [], `${name} loads no TypeBox module`)
  }
})

t.test('the hook does see Fastify when a command loads it (serve imports the ingress)', async (t) => {
  const { dataDir } = await seeded(t)
  const run = await traced(dataDir, ['serve', '--help'])
  t.equal(run.code, 0, run.stderr)
  t.ok(run.resolved.some((url) => FASTIFY_MODULE.test(url)), 'fastify is among the resolved modules')
})

/** Imports `specifier` in a fresh process (from this package, as the cli does) and returns what it resolved. */
async function resolvedBy(specifier: string, t: { teardown(fn: () => Promise<void>): void }): Promise<readonly string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-resolved-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const log = join(dir, 'resolved.log')
  const cwd = fileURLToPath(new URL('..', import.meta.url))
  const failed = await new Promise<string | null>((resolve) => {
    execFile(process.execPath, ['--import', RECORDER, '--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`],
      { cwd, env: { PATH: process.env['PATH'] ?? '', WAYBILL_RESOLVED_LOG: log } },
      (error, _stdout, stderr) => { resolve(error === null ? null : `importing ${specifier} failed: ${error.message}\n${stderr}`) })
  })
  if (failed !== null) throw new Error(failed)
  return (await readFile(log, 'utf8')).split('\n').filter(Boolean)
}

t.test('the domain, the event store and the projector load no TypeBox module; the wire schemas and the HTTP app do', async (t) => {
  // The writer threads, waybill verify, rebuild, audit and projector import only these; TypeBox is ~700 modules, ~0.2 s.
  for (const specifier of ['@waybill/domain', '@waybill/event-store', '@waybill/projector']) {
    const resolved = await resolvedBy(specifier, t)
    t.ok(resolved.some((url) => url.endsWith('/packages/domain/dist/index.js')), `${specifier}: the hook saw the domain being loaded`)
    t.same(resolved.filter((url) => TYPEBOX_MODULE.test(url)), [], `${specifier} loads no TypeBox module`)
  }
  for (const specifier of ['@waybill/domain/wire', '@waybill/http']) {
    t.ok((await resolvedBy(specifier, t)).some((url) => TYPEBOX_MODULE.test(url)), `${specifier} does load TypeBox`)
  }
})
