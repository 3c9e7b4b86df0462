import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { LevelWithSilent } from 'pino'
import { openFileBlobStore, openSqliteEventStore, type BlobStore, type SqliteEventStore } from '@waybill/event-store'
import { ensureSandboxKey, isScope, type KeyRing, type Scope } from '@waybill/keys'
import type { Reply, SendOptions } from '../harness.js'
import type { ProjectorOptions } from '@waybill/projector'
import { buildApp, type AppOptions } from '../../src/index.js'
import { openReadSide, projectAll, type ReadSide } from './read-side.js'

/** A key the test holds: the whole key for the header, its id for what the log and history show. */
interface HeldKey {
  readonly key: string
  readonly keyId: string
}

export interface TestApp {
  /** The app `waybill serve` builds, driven with `inject` (its requests count as HTTPS). */
  readonly app: FastifyInstance
  readonly dataDir: string
  readonly store: SqliteEventStore
  readonly blobs: BlobStore
  readonly readSide: ReadSide
  /** Every log line the app wrote, parsed. */
  readonly logs: Array<Record<string, unknown>>
  /** A live key for `"<account>|<scope>,<scope>"` (e.g. `"*|orders:audit"`), issued once and kept. */
  key(principal: string): Promise<HeldKey>
  /** GET as the key of `principal` (none when null). */
  get(url: string, principal?: string | null): Promise<LightMyRequestResponse>
  /** POST a JSON body as the key of `principal`, with more headers if given. */
  post(url: string, body: unknown, principal?: string | null, headers?: Readonly<Record<string, string>>): Promise<LightMyRequestResponse>
  /** The app's key ring. */
  readonly keys: KeyRing
  /** The sandbox test key, as a first start writes it. */
  readonly testKey: string
  /** A request as `harness.ts`'s servers take it (`key` defaults to the sandbox test key), answered in process. */
  send(method: string, path: string, options?: SendOptions & { readonly from?: string }): Promise<Reply>
  json(path: string, body: unknown, key?: string | null): Promise<Reply>
  /** A fresh live key for an account with the given scopes. */
  newKey(account: string, scopes: readonly Scope[]): Promise<string>
  /** Runs the projector until the read model holds every event stored so far (signing heads when told how). */
  project(options?: Pick<ProjectorOptions, 'batchSize' | 'audit'>): Promise<void>
}

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface TestAppOptions extends Partial<Pick<AppOptions, 'rateLimit' | 'addressLimit' | 'failedKeyLimit' | 'loadShedding' | 'acceptTestKeys'>> {
  /** The log level; the lines are kept in `logs` either way. Default `info`. */
  readonly logLevel?: LevelWithSilent
  /** The principal `get` and `post` use when given none. Default `"acme|orders:read"`. */
  readonly defaultPrincipal?: string
}

/**
 * The real app on a real SQLite store, image store, read model and heads file in a temporary data
 * dir, for tests whose subject is not the socket: validation, states, errors, keys, the read and
 * audit routes. Keys are real keys of the app's own key ring.
 */
export async function testApp(t: Teardown, options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-app-'))
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite'), writer: 'inline' })
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  const readSide = await openReadSide(dataDir)
  const logs: Array<Record<string, unknown>> = []
  const app = await buildApp({
    store, blobs, dataDir, subjectKeys: readSide.subjectKeys, readModel: readSide.readModel, audit: readSide.audit, isSecure: () => true,
    logLevel: options.logLevel ?? 'info',
    logDestination: { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>) } },
    // Lifted unless a test is about them: a machine busy with other suites must not turn answers into 503s.
    loadShedding: options.loadShedding ?? { maxEventLoopDelayMs: 60_000, appendTimeoutMs: 60_000 },
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.addressLimit !== undefined ? { addressLimit: options.addressLimit } : {}),
    ...(options.acceptTestKeys !== undefined ? { acceptTestKeys: options.acceptTestKeys } : {}),
    ...(options.failedKeyLimit !== undefined ? { failedKeyLimit: options.failedKeyLimit } : {}),
  })
  t.teardown(async () => {
    await app.close()
    await readSide.close()
    await store.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const held = new Map<string, Promise<HeldKey>>()
  const key = (principal: string): Promise<HeldKey> => {
    let found = held.get(principal)
    if (found === undefined) {
      const [account = '', scopes = ''] = principal.split('|')
      found = app.keys.issue({ account, scopes: scopes.split(',').filter(isScope) })
        .then((issued) => ({ key: issued.key, keyId: issued.record.keyId }))
      held.set(principal, found)
    }
    return found
  }
  const sandbox = await ensureSandboxKey(app.keys, dataDir, { enabled: true })
  const testKey = sandbox.created ?? ''
  const send = async (method: string, path: string, o: SendOptions & { readonly from?: string } = {}): Promise<Reply> => {
    const headers: Record<string, string | string[]> = { ...(o.headers ?? {}) }
    const presented = o.key === undefined ? testKey : o.key
    if (presented !== null) headers['service-api-key'] = presented
    if (o.contentType !== undefined) headers['content-type'] = o.contentType
    const answer = await app.inject({
      method: method as 'GET', url: path, headers, ...(o.body !== undefined ? { payload: o.body } : {}), ...(o.from !== undefined ? { remoteAddress: o.from } : {}),
    })
    let json: unknown
    try { json = JSON.parse(answer.body) } catch { json = undefined }
    return { status: answer.statusCode, headers: answer.headers as Reply['headers'], text: answer.body, json }
  }
  const fallback = options.defaultPrincipal ?? 'acme|orders:read'
  const headersFor = async (principal: string | null | undefined): Promise<Record<string, string>> =>
    principal === null ? {} : { 'service-api-key': (await key(principal ?? fallback)).key }
  return {
    app, dataDir, store, blobs, readSide, logs, key, keys: app.keys, testKey, send,
    json: (path, body, presented) => send('POST', path, {
      body: JSON.stringify(body), contentType: 'application/json', ...(presented !== undefined ? { key: presented } : {}),
    }),
    newKey: async (account, scopes) => (await app.keys.issue({ account, scopes })).key,
    get: async (url, principal) => app.inject({ method: 'GET', url, headers: await headersFor(principal) }),
    post: async (url, body, principal, headers = {}) =>
      app.inject({ method: 'POST', url, headers: { ...headers, ...await headersFor(principal) }, payload: body as object }),
    project: (projection) => projectAll(store, readSide, dataDir, projection),
  }
}
