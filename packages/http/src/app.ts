import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerFactory } from 'fastify'
import type { LevelWithSilent } from 'pino'
import { LIMITS } from '@waybill/domain'
import { serveConsole } from '@waybill/console'
import type { BlobStore, EventStore } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import { KeyRing } from '@waybill/keys'
import type { AuditLog, HeadStore, ReadModel } from '@waybill/projector'
import { DeliveryLog } from '@waybill/webhooks'
import { exposureHandler } from './transport/exposure.js'
import type { LogDestination } from './logging/log-destination.js'
import { createLogger } from './logging/logger.js'
import { RequestLogController } from './logging/request-log.js'
import { transportCheck, type TransportCheck } from './transport/transport-check.js'
import addressLimit, { type AddressLimitOptions } from './limits/address-limit.js'
import auth, { type FailedKeyLimit } from './auth/authenticate.js'
import bodyParsers from './body/body-parsers.js'
import docs from './openapi/docs.js'
import errorHandler, { problemSender } from './errors/error-handler.js'
import loadShedding, { type LoadSheddingOptions } from './limits/load-shedding.js'
import metricsPlugin, { createMetrics, type ProjectorView } from './metrics/metrics.js'
import { readiness } from './readiness/readiness.js'
import { spaceWatch, type SpaceOptions } from './readiness/space.js'
import { boundedAppends } from './store/bounded-appends.js'
import { blobsWithStorageFailures, keysWithStorageFailures } from './store/storage-failures.js'
import rateLimit, { type RateLimitOptions } from './limits/rate-limit.js'
import securityHeaders from './transport/security-headers.js'
import transport, { refuseInsecure } from './transport/transport.js'
import auditRoutes from './routes/audit/index.js'
import deliveries from './routes/deliveries/post-delivery.js'
import orderRoutes from './routes/orders/index.js'
import errorDescriptions from './routes/service/errors.js'
import health from './routes/service/health.js'
import ping from './routes/service/ping.js'
import webhookRoutes from './routes/webhooks/index.js'
import { validatorCompiler } from './validation/validator-compiler.js'
import { lazySerializerFactory } from './serialization/lazy-serializer.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The key ring the app authenticates with; the server entry revokes exposed keys through it. */
    keys: KeyRing
  }
}

export interface AppOptions {
  readonly store: EventStore
  readonly blobs: Pick<BlobStore, 'put' | 'read'> & Partial<Pick<BlobStore, 'usage'>>
  /** The keys that seal and open each order's personal fields (docs/design.md#personal-data). */
  readonly subjectKeys: SubjectKeyStore
  /** The orders read model the read routes answer from. */
  readonly readModel: ReadModel
  /** What the audit routes serve: the audit log, and the heads file (the signed heads and the public keys that verify them). */
  readonly audit: { readonly log: AuditLog; readonly heads: HeadStore }
  /** What the webhook routes read; by default `webhooks.sqlite` in `dataDir`, read-only (closed with the app). */
  readonly webhooks?: DeliveryLog
  /** False on a server without the sandbox: test keys are refused. Default true. */
  readonly acceptTestKeys?: boolean
  /** Where replacement keys and the test key file are written. */
  readonly dataDir: string
  /** Addresses (IPs / CIDR) whose X-Forwarded-Proto and X-Forwarded-For are believed. */
  readonly trustProxy?: readonly string[]
  /**
   * How a request's transport is judged; by default from its socket and the trusted proxy's
   * X-Forwarded-Proto (`transportCheck`). Tests that drive the app with `inject`, which has no
   * TLS socket, say here that their requests count as HTTPS.
   */
  readonly isSecure?: TransportCheck
  readonly rateLimit?: RateLimitOptions
  /** Requests per window from one client address, before any key is looked at. */
  readonly addressLimit?: AddressLimitOptions
  /** Refused keys per window from one client address, past which its requests are refused unheard. Default 20 a minute. */
  readonly failedKeyLimit?: FailedKeyLimit
  readonly logLevel?: LevelWithSilent
  /** Where log lines go; stdout, in a way that cannot hang the exit (log-destination.ts), unless told. */
  readonly logDestination?: LogDestination
  /** Lets the server entry put the app on its own HTTPS server (and the plain-HTTP one). */
  readonly serverFactory?: FastifyServerFactory
  /** True from the moment shutdown starts: new requests are answered 503. */
  readonly isDraining?: () => boolean
  /** Bounds on appends in flight, on the wait for one, and on event-loop lag (503 past them). */
  readonly loadShedding?: LoadSheddingOptions
  /**
   * What /readyz allows (docs/contract.md#health-probes): how long the store may take to answer
   * (default 2,000 ms), how long the projector may be stuck (default 30 s), the free-space floor
   * and the size of the probe write that tells room came back (1 MiB each).
   */
  readonly readiness?: { readonly storeTimeoutMs?: number; readonly stallAfterMs?: number } & SpaceOptions
  /** The projector of this process, when one runs here: its metrics, and readiness fails while it is stuck. */
  readonly projector?: ProjectorView
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The Waybill HTTP app. It never listens; `startServer` (or a test's `inject`) drives it. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const isSecure = options.isSecure ?? transportCheck(options.trustProxy ?? [])
  const pinoLogger = createLogger({ level: options.logLevel ?? 'info', ...(options.logDestination !== undefined ? { destination: options.logDestination } : {}) })
  const logger: FastifyBaseLogger = pinoLogger
  const space = spaceWatch(options.dataDir, options.readiness ?? {})
  const ready = readiness({
    space, store: options.store, readModel: options.readModel, auditLog: options.audit.log, log: logger,
    ...(options.projector !== undefined ? { projector: options.projector.status.bind(options.projector) } : {}),
    ...(options.readiness?.storeTimeoutMs !== undefined ? { storeTimeoutMs: options.readiness.storeTimeoutMs } : {}),
    ...(options.readiness?.stallAfterMs !== undefined ? { stallAfterMs: options.readiness.stallAfterMs } : {}),
  })
  const metrics = createMetrics({
    store: options.store, dataDir: options.dataDir, blobs: options.blobs, heads: options.audit.heads, readiness: ready,
    ...(options.projector !== undefined ? { projector: options.projector } : {}),
  })
  const sendProblem = problemSender((code, status) => { metrics.countProblem(code, status) })
  const app = Fastify({
    loggerInstance: logger,
    // One line per request, when it is answered (logging/request-log.ts), with the key cut from its path.
    logController: new RequestLogController((level) => pinoLogger.isLevelEnabled(level)),
    bodyLimit: LIMITS.bodyMaxBytes,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
    // order_id may be 128 characters of up to four UTF-8 bytes, each byte percent-encoded as three
    // characters in a path; Fastify's default maxParamLength of 100 would turn a long but valid
    // id away before our routes see it.
    routerOptions: { maxParamLength: LIMITS.orderIdMaxLength * 12 },
    // While closing, requests still go through the hooks, so the auth hook's drain check answers
    // them with our 503 problem body and Retry-After, not Fastify's own plain 503.
    return503OnClosing: false,
    trustProxy: options.trustProxy !== undefined && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    // A path Fastify cannot decode (bad percent-encoding, a parameter past maxParamLength) is
    // refused before any hook runs; it still gets a problem body (400 bad_request), and over
    // plain HTTP it is still insecure_connection and still revokes the key it exposed.
    frameworkErrors: (error, request, reply) => {
      if (isSecure(request.raw)) {
        sendProblem(error, request, reply)
        return
      }
      refuseInsecure(request, revokeExposed)
        .catch((refusal: unknown) => sendProblem(refusal, request, reply))
        .catch((failure: unknown) => request.log.error({ err: failure }, 'could not answer a refused request'))
    },
    ...(options.serverFactory !== undefined ? { serverFactory: options.serverFactory } : {}),
  })

  app.setValidatorCompiler(validatorCompiler)
  const keys = new KeyRing(options.store, undefined, {
    // A use that could not be recorded costs a stale "last used" in `waybill keys list`, never a request.
    onUseNotRecorded: (error, keyId) => { app.log.warn({ err: error, key_id: keyId }, 'could not record the use of an API key') },
  })
  // Uses noted since the last write are recorded before the store closes (the caller closes it after the app).
  app.addHook('onClose', async () => { await keys.close() })
  app.decorate('keys', keys)
  const revokeExposed = exposureHandler(keys, options.dataDir, app.log)
  // Callback-style hooks here and in the plugins on every request's path: an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    done(null, payload)
  })
  await app.register(errorHandler, { send: sendProblem })
  await app.register(securityHeaders)
  await app.register(metricsPlugin, { metrics })
  // Hooks run in registration order: the transport check first, so that no other answer (load
  // shedding, draining, a limit) can come before a plain-HTTP key is revoked.
  await app.register(transport, { isSecure, revokeExposed })
  await app.register(addressLimit, options.addressLimit ?? { max: 5000, windowMs: 1000 })
  await app.register(loadShedding, options.loadShedding ?? {})
  const commandStore = space.appends(metrics.instrument(boundedAppends(options.store, options.loadShedding)))
  await app.register(auth, {
    keys,
    isDraining: options.isDraining ?? (() => false),
    acceptTestKeys: options.acceptTestKeys ?? true,
    failedKeys: options.failedKeyLimit ?? { max: 20, windowMs: 60_000 },
  })
  await app.register(rateLimit, options.rateLimit ?? { max: 1000, windowMs: 1000 })
  await app.register(bodyParsers)
  await app.register(docs)
  await app.register(health, { readiness: ready })
  await app.register(errorDescriptions)
  await app.register(ping)
  await app.register(deliveries, { store: commandStore, blobs: blobsWithStorageFailures(options.blobs, (error) => { space.imageFailed(error) }), keys: keysWithStorageFailures(options.subjectKeys) })
  await app.register(orderRoutes, { readModel: options.readModel, auditLog: options.audit.log, store: options.store, blobs: options.blobs, keys: options.subjectKeys })
  await app.register(auditRoutes, { ...options.audit, store: options.store })
  const webhooks = options.webhooks ?? new DeliveryLog(options.dataDir)
  if (options.webhooks === undefined) app.addHook('onClose', async () => { webhooks.close() })
  await app.register(webhookRoutes, { log: webhooks })
  // The auditors' console at /console (no key; out of the OpenAPI document).
  await app.register(serveConsole)
  return app
}
