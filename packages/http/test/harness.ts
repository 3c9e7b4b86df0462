import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request as undiciRequest } from 'undici'
import { openFileBlobStore, openSqliteEventStore, type SqliteEventStore } from '@waybill/event-store'
import { KeyRing, type Scope } from '@waybill/keys'
import { startServer, type ConnectionLimits, type LoadSheddingOptions, type RunningServer } from '../src/index.js'
import { openReadSide, projectAll, type ReadSide } from './helpers/read-side.js'

export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  /** The parsed body when it is JSON (or problem+json); undefined otherwise. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read in whatever shape the test then asserts
  readonly json: any
}

export interface SendOptions {
  readonly key?: string | null
  readonly headers?: Record<string, string | string[]>
  readonly body?: string | Buffer
  readonly contentType?: string
}

export interface TestServer {
  readonly server: RunningServer
  readonly dataDir: string
  readonly store: SqliteEventStore
  readonly keys: KeyRing
  /** The read model, heads and signing key the server reads. */
  readonly readSide: ReadSide
  readonly testKey: string
  /** An HTTPS request to the server; `key` defaults to the sandbox test key. */
  send(method: string, path: string, options?: SendOptions): Promise<Reply>
  /** The same, over the plain-HTTP listener. */
  sendPlain(method: string, path: string, options?: SendOptions): Promise<Reply>
  json(path: string, body: unknown, key?: string | null): Promise<Reply>
  /** A fresh live key for an account with the given scopes. */
  newKey(account: string, scopes: readonly Scope[]): Promise<string>
  /** Runs the projector until the read model holds every event stored so far. */
  project(): Promise<void>
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/** Starts a real server (HTTPS + plain HTTP, SQLite on disk) in a temporary data dir. */
export interface TestServerOptions {
  readonly rateLimit?: { max: number; windowMs: number }
  readonly addressLimit?: { max: number; windowMs: number }
  readonly maxConnections?: number
  readonly handshakeTimeoutMs?: number
  readonly connectionLimits?: ConnectionLimits
  /** WAYBILL_TRUST_PROXY: the test client connects from 127.0.0.1. */
  readonly trustProxy?: readonly string[]
  /** The load-shedding bounds, for a test whose requests are heavy on purpose. */
  readonly loadShedding?: LoadSheddingOptions
}

export async function startTestServer(t: Teardown, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-http-'))
  const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') })
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  const readSide = await openReadSide(dataDir)
  const server = await startServer({
    dataDir, httpsPort: 0, httpPort: 0, host: '127.0.0.1', tls: null, trustProxy: options.trustProxy ?? [], logLevel: 'silent',
    metrics: { host: '127.0.0.1', port: 0 },
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.addressLimit !== undefined ? { addressLimit: options.addressLimit } : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
    ...(options.connectionLimits !== undefined ? { connectionLimits: options.connectionLimits } : {}),
    ...(options.loadShedding !== undefined ? { loadShedding: options.loadShedding } : {}),
  }, { store, blobs, subjectKeys: readSide.subjectKeys, readModel: readSide.readModel, audit: readSide.audit })
  const cert = await readFile(server.certPath, 'utf8')
  const agent = new Agent({ connect: { ca: cert } })
  const plainAgent = new Agent()
  t.teardown(async () => {
    await server.close()
    await readSide.close()
    await store.close()
    await agent.close()
    await plainAgent.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const testKey = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  const keys = new KeyRing(store)
  const sendVia = (base: string, dispatcher: Agent) => async (method: string, path: string, o: SendOptions = {}): Promise<Reply> => {
    const headers: Record<string, string | string[]> = { ...(o.headers ?? {}) }
    const key = o.key === undefined ? testKey : o.key
    if (key !== null) headers['service-api-key'] = key
    if (o.contentType !== undefined) headers['content-type'] = o.contentType
    const response = await undiciRequest(`${base}${path}`, {
      method: method as 'GET', headers, dispatcher, ...(o.body !== undefined ? { body: o.body } : {}),
    })
    const text = await response.body.text()
    let json: unknown
    try { json = JSON.parse(text) } catch { json = undefined }
    return { status: response.statusCode, headers: response.headers, text, json }
  }
  const send = sendVia(server.httpsUrl, agent)
  return {
    server, dataDir, store, keys, readSide, testKey, send,
    sendPlain: sendVia(`http://127.0.0.1:${server.httpPort}`, plainAgent),
    json: (path, body, key) => send('POST', path, {
      body: JSON.stringify(body), contentType: 'application/json', ...(key !== undefined ? { key } : {}),
    }),
    newKey: async (account, scopes) => (await keys.issue({ account, scopes })).key,
    project: () => projectAll(store, readSide, dataDir),
  }
}

