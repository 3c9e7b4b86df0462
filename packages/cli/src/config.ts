import { isIP } from 'node:net'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { envSchema } from 'env-schema'
import type { XStatic } from 'typebox/schema'

/** Everything Waybill reads from its environment (docs/design.md, "Configuration"), validated and typed. */
export interface WaybillConfig {
  readonly dataDir: string
  readonly httpsPort: number
  readonly httpPort: number
  readonly host: string
  /** Paths of a PEM certificate and key; both or neither. Neither: a self-signed pair in dataDir. */
  readonly tls: { readonly certPath: string; readonly keyPath: string } | null
  /** Addresses (IPs or CIDR ranges) whose X-Forwarded-Proto is believed. Empty: trust nobody. */
  readonly trustProxy: readonly string[]
  readonly store: 'sqlite' | 'eventstoredb'
  readonly eventstoreConnectionString: string | null
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** The listener of /metrics, of its own (plain HTTP, no key): loopback by default, never the API's. */
  readonly metrics: { readonly host: string; readonly port: number }
  /** Port of `waybill projector`'s health and metrics listener (on the metrics host). */
  readonly projectorPort: number
  /** Requests one API key may make per window (WAYBILL_RATE_LIMIT, WAYBILL_RATE_LIMIT_WINDOW_MS). */
  readonly rateLimit: { readonly max: number; readonly windowMs: number }
  /** Requests one client address may make per window, before its key is looked at. */
  readonly addressRateLimit: number
  /** Open connections each listener holds at most. */
  readonly maxConnections: number
  /** Connections one client address may hold per listener, and plain-HTTP connections open at once. */
  readonly connectionLimits: { readonly perAddress: number; readonly plainConnections: number }
  /** Refused keys one client address may present per minute before it is refused unheard. */
  readonly failedKeysPerAddress: number
  /** The TLS offer: protocol floor and cipher list (undefined: Mozilla "intermediate"). */
  readonly tlsPolicy: { readonly minVersion: 'TLSv1.2' | 'TLSv1.3'; readonly ciphers?: string }
  /** Whether the sandbox test key exists (off in production). */
  readonly sandbox: boolean
  /** The audit log: where the tree-head signing key lives, and how often heads are signed (docs/audit.md). */
  readonly audit: { readonly keyDir: string; readonly headEveryEvents: number; readonly headEveryMs: number }
  /** Where the keys that seal personal data live (docs/personal-data.md#where-it-lives). */
  readonly subjectKeyDir: string
  /** WAYBILL_ERASE_AFTER: how long personal data is kept after an order closes (docs/personal-data.md#retention); null: kept until erased. */
  readonly retention: { readonly keepMs: number; readonly policy: string } | null
  /** Webhook delivery (docs/operations.md#webhooks): the retry waits (null: the default schedule) and each attempt's bound. */
  readonly webhooks: { readonly retrySchedule: readonly number[] | null; readonly timeoutMs: number }
}

/** A variable had a value Waybill cannot run with; the message names it. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

const port = (description: string, fallback?: number) =>
  ({ type: 'integer', minimum: 0, maximum: 65535, description, ...(fallback === undefined ? {} : { default: fallback }) }) as const
// The upper bound keeps the value an exact integer once read as a JS number.
const count = (description: string, fallback: number) =>
  ({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: fallback, description }) as const
const text = (description: string, fallback?: string) =>
  ({ type: 'string', ...(fallback === undefined ? {} : { default: fallback }), description }) as const
const oneOf = <const Values extends readonly string[]>(values: Values, fallback: Values[number], description: string) =>
  ({ enum: values, default: fallback, description }) as const

/**
 * Every environment variable Waybill reads: its type, default, allowed values and meaning. The
 * one home of the configuration: `loadConfig` validates with it, the deploy test takes the
 * variable names from it and the table of docs/operations.md#configuration is checked against
 * it. Rules between variables are in `loadConfig`.
 *
 * A JSON Schema written as data, typed by TypeBox (`XStatic` below), rather than built with
 * TypeBox's `Type` at run time: loading TypeBox (~700 modules) was 0.2 s of every `waybill`
 * command's 0.3 s, for a schema that never changes. Every variable with a default is required
 * (env-schema fills it in); the others are optional.
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  required: [
    'WAYBILL_DATA_DIR', 'WAYBILL_HTTPS_PORT', 'WAYBILL_HTTP_PORT', 'WAYBILL_HOST', 'WAYBILL_STORE', 'WAYBILL_RATE_LIMIT',
    'WAYBILL_RATE_LIMIT_WINDOW_MS', 'WAYBILL_RATE_LIMIT_PER_ADDRESS', 'WAYBILL_METRICS_PORT', 'WAYBILL_METRICS_HOST',
    'WAYBILL_PROJECTOR_PORT', 'WAYBILL_MAX_CONNECTIONS', 'WAYBILL_MAX_CONNECTIONS_PER_ADDRESS', 'WAYBILL_MAX_PLAIN_CONNECTIONS',
    'WAYBILL_FAILED_KEYS_PER_ADDRESS', 'WAYBILL_TLS_MIN_VERSION', 'WAYBILL_SANDBOX', 'WAYBILL_AUDIT_KEY_DIR',
    'WAYBILL_AUDIT_HEAD_EVERY_EVENTS', 'WAYBILL_AUDIT_HEAD_EVERY_MS', 'WAYBILL_WEBHOOK_TIMEOUT_MS', 'LOG_LEVEL',
  ],
  properties: {
    WAYBILL_DATA_DIR: text('event store (`events.sqlite`), images (`blobs/`), `tls/`, `test-api-key`, `replaced-keys/`', './data'),
    WAYBILL_HTTPS_PORT: port('HTTPS listener', 8443),
    WAYBILL_HTTP_PORT: port(
      'plain-HTTP listener (answers only `insecure_connection`); must differ from `WAYBILL_HTTPS_PORT` unless 0', 8080),
    WAYBILL_HOST: text('address both listeners bind', '127.0.0.1'),
    WAYBILL_TLS_CERT: text('PEM certificate file; set with `WAYBILL_TLS_KEY` or neither (neither: a self-signed pair in the data dir)'),
    WAYBILL_TLS_KEY: text('PEM private key file of `WAYBILL_TLS_CERT`; both or neither'),
    WAYBILL_TRUST_PROXY: text(
      'comma-separated IPs/CIDR ranges whose `X-Forwarded-Proto`/`X-Forwarded-For` are believed; unset: trust nobody'),
    WAYBILL_STORE: oneOf(['sqlite', 'eventstoredb'], 'sqlite', 'the event store'),
    EVENTSTORE_CONNECTION_STRING: text('`esdb://…` or `esdb+discover://…`, required with `WAYBILL_STORE=eventstoredb`'),
    WAYBILL_RATE_LIMIT: count('requests per key per window', 1000),
    WAYBILL_RATE_LIMIT_WINDOW_MS: count('the rate-limit window, in milliseconds', 1000),
    WAYBILL_RATE_LIMIT_PER_ADDRESS: count('requests per client address per window, checked before the key (unknown keys included)', 5000),
    WAYBILL_METRICS_PORT: port('`/metrics` on a plain-HTTP listener of its own (no key; never on the API listener); must differ from both listeners unless 0', 9464),
    WAYBILL_METRICS_HOST: text(
      'address that the `/metrics` listener and `waybill projector`\'s health listener bind; loopback unless a private network needs it', '127.0.0.1'),
    WAYBILL_PROJECTOR_PORT: port(
      '`waybill projector`\'s plain-HTTP listener: `/healthz`, `/readyz` (its projections up and moving), `/metrics`', 9465),
    WAYBILL_MAX_CONNECTIONS: count('open connections each listener holds at most; past it new ones are refused', 4096),
    WAYBILL_MAX_CONNECTIONS_PER_ADDRESS: count('open connections one client address may hold on each listener (a trusted proxy is not counted); past it its new ones are closed', 256),
    WAYBILL_MAX_PLAIN_CONNECTIONS: count('plain-HTTP connections open at once (each is answered `insecure_connection` and closed a second later); at most a quarter of `WAYBILL_MAX_CONNECTIONS` counts', 64),
    WAYBILL_FAILED_KEYS_PER_ADDRESS: count('refused API keys one client address may present per minute; past it its requests answer `429` before any key lookup until the minute ends', 20),
    WAYBILL_TLS_MIN_VERSION: oneOf(['TLSv1.2', 'TLSv1.3'], 'TLSv1.2', 'oldest TLS version offered'),
    WAYBILL_TLS_CIPHERS: text(
      'OpenSSL cipher list (TLS 1.3 and 1.2 suites); unset: Mozilla "intermediate" (AEAD suites with forward secrecy only)'),
    WAYBILL_SANDBOX: oneOf(['on', 'off'], 'on', '`off` in production: no sandbox test key is made at first start, and test keys are refused'),
    WAYBILL_AUDIT_KEY_DIR: text('directory (0700) of the tree-head signing key (`tree-head-ed25519.pem`, 0600), made at first start; outside the data dir, so that write access to the store alone cannot sign a head (`~/` is the home directory)',
      '~/.config/waybill/audit-key'),
    WAYBILL_SUBJECT_KEY_DIR: text('directory (0700) of the keys that seal personal data, one per order (`subject-keys.sqlite`); outside the data dir, so that no copy of the data dir holds them and an erasure reaches every backup; unset: `<WAYBILL_DATA_DIR>.subject-keys`, beside the data dir'),
    WAYBILL_ERASE_AFTER: text('erase the personal data of orders this long after they were completed or canceled (e.g. `90d`, `12h`), by the process that runs the projector, each erasure recorded as `waybill erase` records it; unset: kept until erased'),
    WAYBILL_AUDIT_HEAD_EVERY_EVENTS: count('a signed tree head at least every this many order events', 1000),
    WAYBILL_AUDIT_HEAD_EVERY_MS: count('a signed tree head at least this many milliseconds after the last one, when the log grew (and on catching up, at most once a second)', 10000),
    WAYBILL_WEBHOOK_RETRIES: text('the waits before each retry of a webhook delivery, comma-separated (`500ms`, `5s`, `5m`, `2h`, `1d`); once a message has spent them, or no attempt has delivered for their sum, the endpoint is disabled; unset: the default schedule of docs/operations.md#webhooks, about three days'),
    WAYBILL_WEBHOOK_TIMEOUT_MS: count('one webhook delivery attempt, from connecting to the end of the answer, at most this many milliseconds', 10000),
    LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level (the API key header is never logged)'),
  },
  additionalProperties: false,
} as const

/** The environment as the schema leaves it: each variable by name, numbers coerced, defaults filled. */
export type WaybillEnvironment = XStatic<typeof CONFIG_SCHEMA>

/**
 * Validates `env` (and nothing else: no `process.env` behind it, no `.env` file) against
 * CONFIG_SCHEMA and the rules between variables. Unknown variables are ignored; an empty value
 * counts as unset. Every failure is a ConfigError whose message starts with the variable. The
 * process entry passes `process.env`; a command is given its environment (command.ts).
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): WaybillConfig {
  const values = validate(env)

  const certPath = values.WAYBILL_TLS_CERT
  const keyPath = values.WAYBILL_TLS_KEY
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new ConfigError(certPath === undefined ? 'WAYBILL_TLS_CERT' : 'WAYBILL_TLS_KEY',
      'WAYBILL_TLS_CERT and WAYBILL_TLS_KEY go together: set both or neither')
  }

  const trustProxy = (values.WAYBILL_TRUST_PROXY ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  for (const entry of trustProxy) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError('WAYBILL_TRUST_PROXY', `"${entry}" is not an IP address or CIDR range`)
    }
  }

  const connection = values.EVENTSTORE_CONNECTION_STRING ?? null
  // Only checked when used, so a sqlite deployment may keep a connection string it does not use.
  if (values.WAYBILL_STORE === 'eventstoredb') {
    if (connection === null) {
      throw new ConfigError('EVENTSTORE_CONNECTION_STRING', 'required when WAYBILL_STORE=eventstoredb')
    }
    // The schemes @eventstore/db-client 6 parses; kurrentdb:// needs @kurrent/kurrentdb-client.
    if (!/^esdb(\+discover)?:\/\/[^/?]/.test(connection)) {
      throw new ConfigError('EVENTSTORE_CONNECTION_STRING', `expected esdb://host:port… or esdb+discover://host:port…`)
    }
  }

  const httpsPort = values.WAYBILL_HTTPS_PORT
  const httpPort = values.WAYBILL_HTTP_PORT
  const metricsPort = values.WAYBILL_METRICS_PORT
  // Port 0 (any free port, for tests) may repeat; a fixed port cannot serve two listeners.
  if (httpPort !== 0 && httpPort === httpsPort) {
    throw new ConfigError('WAYBILL_HTTP_PORT', `must differ from WAYBILL_HTTPS_PORT (both ${httpPort})`)
  }
  if (metricsPort !== 0 && (metricsPort === httpsPort || metricsPort === httpPort)) {
    throw new ConfigError('WAYBILL_METRICS_PORT', `must differ from WAYBILL_HTTPS_PORT and WAYBILL_HTTP_PORT (${metricsPort})`)
  }

  const dataDir = resolve(values.WAYBILL_DATA_DIR)
  const keyDir = expandHome(values.WAYBILL_AUDIT_KEY_DIR)
  // Write access to the store must not reach the key that signs its heads (docs/audit.md#the-signing-key).
  if (keyDir === dataDir || keyDir.startsWith(`${dataDir}${sep}`)) {
    throw new ConfigError('WAYBILL_AUDIT_KEY_DIR', `must be outside WAYBILL_DATA_DIR (${dataDir}): whoever can write the store must not also hold the key that signs its tree heads`)
  }

  const subjectKeyDir = values.WAYBILL_SUBJECT_KEY_DIR === undefined ? `${dataDir}.subject-keys` : expandHome(values.WAYBILL_SUBJECT_KEY_DIR)
  // A copy of the data dir must not hold the keys that make its personal data readable (docs/personal-data.md#where-it-lives).
  if (subjectKeyDir === dataDir || subjectKeyDir.startsWith(`${dataDir}${sep}`)) {
    throw new ConfigError('WAYBILL_SUBJECT_KEY_DIR', `must be outside WAYBILL_DATA_DIR (${dataDir}): a copy of the data dir must not hold the keys that open its personal data`)
  }

  const eraseAfter = values.WAYBILL_ERASE_AFTER
  let retention: WaybillConfig['retention'] = null
  if (eraseAfter !== undefined) {
    const match = /^(\d{1,5})(h|d)$/.exec(eraseAfter)
    const keepMs = match === null ? 0 : Number(match[1]) * (match[2] === 'd' ? 86_400_000 : 3_600_000)
    if (keepMs <= 0) throw new ConfigError('WAYBILL_ERASE_AFTER', `"${eraseAfter}" is not a duration of hours or days such as 90d or 36h`)
    retention = { keepMs, policy: `retention ${eraseAfter}` }
  }

  return {
    dataDir,
    subjectKeyDir,
    retention,
    httpsPort,
    httpPort,
    host: values.WAYBILL_HOST,
    tls: certPath !== undefined && keyPath !== undefined ? { certPath: resolve(certPath), keyPath: resolve(keyPath) } : null,
    trustProxy,
    store: values.WAYBILL_STORE,
    eventstoreConnectionString: connection,
    logLevel: values.LOG_LEVEL,
    metrics: { host: values.WAYBILL_METRICS_HOST, port: metricsPort },
    projectorPort: values.WAYBILL_PROJECTOR_PORT,
    rateLimit: { max: values.WAYBILL_RATE_LIMIT, windowMs: values.WAYBILL_RATE_LIMIT_WINDOW_MS },
    addressRateLimit: values.WAYBILL_RATE_LIMIT_PER_ADDRESS,
    maxConnections: values.WAYBILL_MAX_CONNECTIONS,
    connectionLimits: { perAddress: values.WAYBILL_MAX_CONNECTIONS_PER_ADDRESS, plainConnections: values.WAYBILL_MAX_PLAIN_CONNECTIONS },
    failedKeysPerAddress: values.WAYBILL_FAILED_KEYS_PER_ADDRESS,
    tlsPolicy: {
      minVersion: values.WAYBILL_TLS_MIN_VERSION,
      ...(values.WAYBILL_TLS_CIPHERS !== undefined ? { ciphers: values.WAYBILL_TLS_CIPHERS } : {}),
    },
    sandbox: values.WAYBILL_SANDBOX === 'on',
    audit: {
      keyDir,
      headEveryEvents: values.WAYBILL_AUDIT_HEAD_EVERY_EVENTS,
      headEveryMs: values.WAYBILL_AUDIT_HEAD_EVERY_MS,
    },
    webhooks: {
      retrySchedule: values.WAYBILL_WEBHOOK_RETRIES === undefined ? null : parseWaits(values.WAYBILL_WEBHOOK_RETRIES),
      timeoutMs: values.WAYBILL_WEBHOOK_TIMEOUT_MS,
    },
  }
}

const WAIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** `5s,5m,2h`: each wait in milliseconds, at least one, none longer than 30 days. */
function parseWaits(text: string): number[] {
  return text.split(',').map((part) => {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(part.trim())
    const ms = match === null ? NaN : Number(match[1]) * WAIT_MS[match[2] as keyof typeof WAIT_MS]
    if (!(ms > 0 && ms <= 30 * WAIT_MS.d)) {
      throw new ConfigError('WAYBILL_WEBHOOK_RETRIES', `expected waits such as 5s,5m,2h (each above 0 and at most 30d), got "${part.trim()}"`)
    }
    return ms
  })
}

/** `~/…` as a path in the home directory (the default key directory is written that way so that docs/operations.md shows it). */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : resolve(path)
}

type PropertySchema = {
  readonly type?: string; readonly enum?: readonly string[]; readonly pattern?: string; readonly minimum?: number; readonly maximum?: number
}
type SchemaError = { readonly instancePath: string }

function validate(env: Readonly<Record<string, string | undefined>>): WaybillEnvironment {
  // Only the schema's variables, trimmed. An empty value is an unset one: `WAYBILL_METRICS_PORT=`
  // in a compose file means "the default", and Ajv would otherwise coerce "" to the number 0.
  const given: Record<string, string> = {}
  for (const [name, schema] of Object.entries(CONFIG_SCHEMA.properties as Record<string, PropertySchema>)) {
    const value = env[name]?.trim()
    if (value === undefined || value === '') continue
    // Ajv's coercion takes "1e3", "0x50", "+80" and "Infinity" for integers, and lets Infinity
    // past every range (ajv-validator/ajv#2212), so a whole number must be written in digits.
    if (schema.type === 'integer' && !/^\d+$/.test(value)) throw refusal(name, schema, value)
    given[name] = value
  }
  try {
    // env: false: `env` is the whole input, so tests and tools can pass their own. No dotenv: an
    // operator's stray .env must not change the service silently. No expansion: a `$` in a
    // connection-string password is a character, not a reference.
    return envSchema<WaybillEnvironment>({ schema: CONFIG_SCHEMA, data: given, env: false, dotenv: false, expandEnv: false })
  } catch (error) {
    const [first] = (error as { errors?: readonly SchemaError[] }).errors ?? []
    const variable = first?.instancePath.slice(1) ?? ''
    const schema = (CONFIG_SCHEMA.properties as Record<string, PropertySchema | undefined>)[variable]
    if (first === undefined || schema === undefined) throw error
    throw refusal(variable, schema, given[variable] ?? '')
  }
}

// What the variable accepts, in words from its schema, and what it was given.
function refusal(variable: string, schema: PropertySchema, value: string): ConfigError {
  const expected = schema.enum !== undefined ? `one of ${schema.enum.join(', ')}`
    : schema.type !== 'integer' ? `a value matching ${schema.pattern ?? 'the schema'}`
    : schema.maximum === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${schema.minimum}`
    : `a whole number from ${schema.minimum} to ${schema.maximum}`
  return new ConfigError(variable, `expected ${expected}, got "${value}"`)
}

function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128))
}
