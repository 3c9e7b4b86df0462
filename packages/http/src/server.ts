import { once } from 'node:events'
import { mkdir } from 'node:fs/promises'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { LevelWithSilent } from 'pino'
import type { WaybillError } from '@waybill/domain'
import { ensureSandboxKey, type SandboxKey } from '@waybill/keys'
import { buildApp, type AppOptions } from './app.js'
import { exposureHandler } from './transport/exposure.js'
import { listenMetrics } from './metrics/metrics-listener.js'
import { ConnectionGuard, type ConnectionLimits } from './transport/connection-guard.js'
import { answerPlainHttp } from './transport/plain-http.js'
import { divertPlainHttp } from './transport/tls-sniff.js'
import type { FailedKeyLimit } from './auth/authenticate.js'
import type { AddressLimitOptions } from './limits/address-limit.js'
import type { LoadSheddingOptions } from './limits/load-shedding.js'
import type { RateLimitOptions } from './limits/rate-limit.js'
import { loadTlsMaterial, TLS_DEFAULTS, type TlsPolicy } from './transport/tls.js'

/** What the server entry needs from the configuration (the CLI maps its environment to it). */
export interface ServerConfig {
  readonly dataDir: string
  readonly httpsPort: number
  readonly httpPort: number
  readonly host: string
  readonly tls: { readonly certPath: string; readonly keyPath: string } | null
  /** Protocol versions and cipher suites offered; Mozilla's "intermediate" profile by default. */
  readonly tlsPolicy?: TlsPolicy
  readonly trustProxy: readonly string[]
  readonly logLevel: LevelWithSilent
  readonly rateLimit?: RateLimitOptions
  /** Requests per window from one client address, before any key is looked at. */
  readonly addressLimit?: AddressLimitOptions
  /** Refused keys per window from one client address, past which its requests are refused unheard. */
  readonly failedKeyLimit?: FailedKeyLimit
  /** `/metrics` on a listener of its own (plain HTTP, no key; loopback by default); null: not served. */
  readonly metrics?: { readonly host: string; readonly port: number } | null
  readonly loadShedding?: LoadSheddingOptions
  /** Open connections each listener holds at most; past it new ones are refused. Default 4,096. */
  readonly maxConnections?: number
  /** Whether the sandbox test key exists: false turns it off (production). Default true. */
  readonly sandboxKey?: boolean
  /** How long a TLS handshake (and a connection's first byte) may take. Default 10,000 ms. */
  readonly handshakeTimeoutMs?: number
  /** Per-address and plain-HTTP connection bounds (docs/contract.md#connections); defaults when absent. */
  readonly connectionLimits?: ConnectionLimits
}

/** What the app serves from: the store, the images, the read model and the audit log's heads and key. */
export type ServerDeps = Pick<AppOptions, 'store' | 'blobs' | 'subjectKeys' | 'readModel' | 'audit' | 'projector'>

export interface RunningServer {
  readonly app: FastifyInstance
  readonly httpsUrl: string
  readonly httpsPort: number
  readonly httpPort: number
  /** The certificate clients should trust (generated in the data dir unless configured). */
  readonly certPath: string
  readonly sandbox: SandboxKey
  /** Where /metrics is served; null when it is not. */
  readonly metricsUrl: string | null
  /** Connections each listener holds open now. */
  openConnections(): Promise<{ readonly https: number; readonly plain: number }>
  /** Stops taking requests, lets in-flight ones finish, closes every listener. */
  close(): Promise<void>
}

/**
 * A client that stalls mid-request holds a connection and its buffered bytes: the TLS handshake
 * and the headers must each be done within 10 s and the whole request (a body of up to 16 MiB)
 * within 60 s, which a server-to-server courier link meets with room to spare. (Our servers are
 * made in serverFactory, so Fastify's timeout options do not reach them; Node checks these every
 * connectionsCheckingInterval, 30 s unless told.)
 */
const TIMEOUTS = { handshakeTimeout: 10_000, headersTimeout: 10_000, requestTimeout: 60_000, connectionsCheckingInterval: 1_000 } as const
const DEFAULT_MAX_CONNECTIONS = 4096

/**
 * Owns the listeners: HTTPS for the API, and a plain-HTTP port that only ever refuses. Plain HTTP
 * is answered without Fastify and without an HTTP parser, on the plain port and on the HTTPS port
 * alike (a connection whose first byte is not a TLS handshake): its bytes are scanned for API
 * keys, and each is revoked and replaced before the `insecure_connection` answer goes out.
 */
export async function startServer(config: ServerConfig, deps: ServerDeps): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const tls = await loadTlsMaterial(config.dataDir, config.tls)
  const maxConnections = config.maxConnections ?? DEFAULT_MAX_CONNECTIONS
  const timeouts = { ...TIMEOUTS, handshakeTimeout: config.handshakeTimeoutMs ?? TIMEOUTS.handshakeTimeout }

  let draining = false
  let https: HttpsServer | null = null
  const app = await buildApp({
    ...deps,
    dataDir: config.dataDir,
    trustProxy: config.trustProxy,
    logLevel: config.logLevel,
    acceptTestKeys: config.sandboxKey ?? true,
    ...(config.rateLimit !== undefined ? { rateLimit: config.rateLimit } : {}),
    ...(config.addressLimit !== undefined ? { addressLimit: config.addressLimit } : {}),
    ...(config.failedKeyLimit !== undefined ? { failedKeyLimit: config.failedKeyLimit } : {}),
    ...(config.loadShedding !== undefined ? { loadShedding: config.loadShedding } : {}),
    isDraining: () => draining,
    serverFactory: (handler) => {
      https = createHttpsServer({ cert: tls.cert, key: tls.key, ...TLS_DEFAULTS, ...config.tlsPolicy, ...timeouts }, handler)
      return https
    },
  })
  const httpsServer = https as HttpsServer | null
  if (httpsServer === null) throw new Error('the HTTPS server was not created')
  const sandbox = await ensureSandboxKey(app.keys, config.dataDir, { enabled: config.sandboxKey ?? true })
  const revokeExposed = exposureHandler(app.keys, config.dataDir, app.log)
  const plainOptions = { revokeExposed, onProblem: (error: WaybillError) => app.metrics.countProblem(error.code, error.status), log: app.log }
  const guard = new ConnectionGuard(config.connectionLimits, config.trustProxy, maxConnections)
  const answerPlain = (socket: Socket): void => {
    if (guard.admitPlain(socket)) answerPlainHttp(socket, plainOptions)
  }
  divertPlainHttp(httpsServer, answerPlain, timeouts.handshakeTimeout, guard.perListener())
  httpsServer.maxConnections = maxConnections
  const admitToPlain = guard.perListener()
  const plain = createNetServer((socket) => {
    if (admitToPlain(socket)) answerPlain(socket)
  })
  plain.maxConnections = maxConnections

  const listening: NetServer[] = []
  const closeAll = async (): Promise<void> => {
    await Promise.all(listening.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
  }
  let metricsServer: NetServer | null = null
  try {
    // Fastify cannot tell that the server from serverFactory speaks TLS; say so in the log line.
    await app.listen({ port: config.httpsPort, host: config.host, listenTextResolver: (address) => `HTTPS listening at ${address.replace(/^http:/, 'https:')}` })
    plain.listen(config.httpPort, config.host)
    await once(plain, 'listening')
    listening.push(plain)
    if (config.metrics != null) {
      metricsServer = await listenMetrics(app, config.metrics.port, config.metrics.host)
      listening.push(metricsServer)
    }
  } catch (error) {
    await closeAll()
    await app.close()
    throw error
  }
  const httpsPort = (httpsServer.address() as AddressInfo).port

  return {
    app,
    httpsUrl: `https://${hostInUrl(config.host)}:${httpsPort}`,
    httpsPort,
    httpPort: (plain.address() as AddressInfo).port,
    certPath: tls.certPath,
    sandbox,
    metricsUrl: metricsServer === null || config.metrics == null
      ? null
      : `http://${hostInUrl(config.metrics.host)}:${(metricsServer.address() as AddressInfo).port}/metrics`,
    openConnections: async () => {
      const count = (server: NetServer) => new Promise<number>((resolve) => server.getConnections((_error, n) => resolve(n)))
      return { https: await count(httpsServer), plain: await count(plain) }
    },
    close: async () => {
      draining = true
      const others = closeAll()
      await app.close()
      await others
    },
  }
}

function hostInUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}
