import { once } from 'node:events'
import { mkdir } from 'node:fs/promises'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import type { LevelWithSilent } from 'pino'
import type { EventStore } from '@waybill/event-store'
import { ensureSandboxKey, KeyRing, type SandboxKey } from '@waybill/keys'
import { buildApp } from './app.js'
import type { BlobStore } from './http/images.js'
import type { RateLimitOptions } from './plugins/rate-limit.js'
import { loadTlsMaterial } from './tls.js'
import { listenMetrics } from './http/metrics-listener.js'
import type { LoadSheddingOptions } from './plugins/load-shedding.js'

/** What the server entry needs from the configuration (the CLI maps its environment to it). */
export interface ServerConfig {
  readonly dataDir: string
  readonly httpsPort: number
  readonly httpPort: number
  readonly host: string
  readonly tls: { readonly certPath: string; readonly keyPath: string } | null
  readonly trustProxy: readonly string[]
  readonly logLevel: LevelWithSilent
  readonly rateLimit?: RateLimitOptions
  /** Serve /metrics on this port (plain HTTP, no key) instead of on the HTTPS listener. */
  readonly metricsPort?: number | null
  /** Address that listener binds; loopback when absent, so only a local scraper sees it. */
  readonly metricsHost?: string
  readonly loadShedding?: LoadSheddingOptions
}

export interface ServerDeps {
  readonly store: EventStore
  readonly blobs: BlobStore
  /** Extra routes behind the key check (the projector's read API). */
  readonly plugins?: readonly FastifyPluginAsync[]
  /** The in-process projector's lag, for /metrics. */
  readonly projectorLag?: () => number
}

export interface RunningServer {
  readonly app: FastifyInstance
  readonly httpsUrl: string
  readonly httpsPort: number
  readonly httpPort: number
  /** The certificate clients should trust (generated in the data dir unless configured). */
  readonly certPath: string
  readonly sandbox: SandboxKey
  /** Where /metrics is served when it has its own port (WAYBILL_METRICS_PORT); null otherwise. */
  readonly metricsUrl: string | null
  /** Stops taking requests, lets in-flight ones finish, closes both listeners. */
  close(): Promise<void>
}

/**
 * A client that stalls mid-request holds a connection and its buffered bytes: headers must
 * arrive within 10 s and the whole request (a body of up to 16 MiB) within 60 s, which a
 * server-to-server courier link meets with room to spare. (Our own servers, made in
 * serverFactory, do not get Fastify's timeout options, so they are set here; Node checks them
 * every connectionsCheckingInterval, 30 s unless told.)
 */
const REQUEST_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 60_000, connectionsCheckingInterval: 1_000 } as const

/**
 * Owns the listeners: HTTPS for the API, and plain HTTP on its own port whose every answer is
 * `insecure_connection` (a key seen there is revoked and replaced first). Both serve the same
 * app; the auth hook tells them apart by the connection (or a trusted X-Forwarded-Proto).
 */
export async function startServer(config: ServerConfig, deps: ServerDeps): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const tls = await loadTlsMaterial(config.dataDir, config.tls)
  const sandbox = await ensureSandboxKey(new KeyRing(deps.store), config.dataDir)

  let draining = false
  let plain: HttpServer | null = null
  const app = await buildApp({
    store: deps.store,
    blobs: deps.blobs,
    dataDir: config.dataDir,
    trustProxy: config.trustProxy,
    logLevel: config.logLevel,
    ...(config.rateLimit !== undefined ? { rateLimit: config.rateLimit } : {}),
    ...(deps.plugins !== undefined ? { plugins: deps.plugins } : {}),
    ...(deps.projectorLag !== undefined ? { projectorLag: deps.projectorLag } : {}),
    ...(config.loadShedding !== undefined ? { loadShedding: config.loadShedding } : {}),
    metricsRoute: config.metricsPort === undefined || config.metricsPort === null,
    isDraining: () => draining,
    serverFactory: (handler) => {
      plain = createHttpServer(REQUEST_TIMEOUTS, handler)
      return createHttpsServer({ cert: tls.cert, key: tls.key, ...REQUEST_TIMEOUTS }, handler)
    },
  })
  // Fastify cannot tell that the server from serverFactory speaks TLS; say so in the log line.
  await app.listen({ port: config.httpsPort, host: config.host, listenTextResolver: (address) => `HTTPS listening at ${address.replace(/^http:/, 'https:')}` })
  const plainServer = plain as HttpServer | null
  if (plainServer === null) throw new Error('the plain-HTTP server was not created')
  plainServer.listen(config.httpPort, config.host)
  try {
    await once(plainServer, 'listening')
  } catch (error) {
    await app.close()
    throw error
  }
  const httpsPort = (app.server.address() as AddressInfo).port
  const httpPort = (plainServer.address() as AddressInfo).port
  const urlHost = hostInUrl(config.host)
  const metricsServer = config.metricsPort === undefined || config.metricsPort === null
    ? null
    : await listenMetrics(app, config.metricsPort, config.metricsHost ?? '127.0.0.1').catch(async (error: unknown) => {
      plainServer.close()
      await app.close()
      throw error
    })

  return {
    app,
    httpsUrl: `https://${urlHost}:${httpsPort}`,
    httpsPort,
    httpPort,
    certPath: tls.certPath,
    sandbox,
    metricsUrl: metricsServer === null ? null : `http://${hostInUrl(config.metricsHost ?? '127.0.0.1')}:${(metricsServer.address() as AddressInfo).port}/metrics`,
    close: async () => {
      draining = true
      metricsServer?.close()
      const plainClosed = new Promise<void>((resolve) => plainServer.close(() => resolve()))
      plainServer.closeIdleConnections()
      await app.close()
      await plainClosed
    },
  }
}

function hostInUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}
