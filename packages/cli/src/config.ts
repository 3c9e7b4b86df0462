import { resolve } from 'node:path'

/** Everything Waybill reads from its environment (DESIGN.md §5), validated and typed. */
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
  /** Port of a separate listener for /metrics; null serves it on the HTTPS listener. */
  readonly metricsPort: number | null
  /** Requests one API key may make per window (WAYBILL_RATE_LIMIT, WAYBILL_RATE_LIMIT_WINDOW_MS). */
  readonly rateLimit: { readonly max: number; readonly windowMs: number }
}

/** A variable had a value Waybill cannot run with; the message names it. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WaybillConfig {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === '' ? undefined : value
  }
  const port = (name: string, fallback: number | null): number | null => {
    const value = text(name)
    if (value === undefined) return fallback
    if (!/^\d+$/.test(value) || Number(value) > 65535) {
      throw new ConfigError(name, `expected a port number from 0 to 65535, got "${value}"`)
    }
    return Number(value)
  }
  const positive = (name: string, fallback: number): number => {
    const value = text(name)
    if (value === undefined) return fallback
    if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
      throw new ConfigError(name, `expected a whole number of at least 1, got "${value}"`)
    }
    return Number(value)
  }
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = text(name) ?? fallback
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${value}"`)
    }
    return value as T
  }

  const certPath = text('WAYBILL_TLS_CERT')
  const keyPath = text('WAYBILL_TLS_KEY')
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new ConfigError(certPath === undefined ? 'WAYBILL_TLS_CERT' : 'WAYBILL_TLS_KEY',
      'WAYBILL_TLS_CERT and WAYBILL_TLS_KEY go together: set both or neither')
  }

  const trustProxy = (text('WAYBILL_TRUST_PROXY') ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  for (const entry of trustProxy) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError('WAYBILL_TRUST_PROXY', `"${entry}" is not an IP address or CIDR range`)
    }
  }

  const store = oneOf('WAYBILL_STORE', ['sqlite', 'eventstoredb'], 'sqlite')
  const connection = text('EVENTSTORE_CONNECTION_STRING') ?? null
  if (store === 'eventstoredb') {
    if (connection === null) {
      throw new ConfigError('EVENTSTORE_CONNECTION_STRING', 'required when WAYBILL_STORE=eventstoredb')
    }
    // The schemes @eventstore/db-client 6 parses; kurrentdb:// needs @kurrent/kurrentdb-client.
    if (!/^esdb(\+discover)?:\/\/[^/?]/.test(connection)) {
      throw new ConfigError('EVENTSTORE_CONNECTION_STRING', 'expected esdb://host:port… or esdb+discover://host:port…')
    }
  }

  const httpsPort = port('WAYBILL_HTTPS_PORT', 8443) as number
  const httpPort = port('WAYBILL_HTTP_PORT', 8080) as number
  const metricsPort = port('WAYBILL_METRICS_PORT', null)
  // Port 0 (any free port, for tests) may repeat; a fixed port cannot serve two listeners.
  if (httpPort !== 0 && httpPort === httpsPort) {
    throw new ConfigError('WAYBILL_HTTP_PORT', `must differ from WAYBILL_HTTPS_PORT (both ${httpPort})`)
  }
  if (metricsPort !== null && metricsPort !== 0 && (metricsPort === httpsPort || metricsPort === httpPort)) {
    throw new ConfigError('WAYBILL_METRICS_PORT', `must differ from WAYBILL_HTTPS_PORT and WAYBILL_HTTP_PORT (${metricsPort})`)
  }

  return {
    dataDir: resolve(text('WAYBILL_DATA_DIR') ?? './data'),
    httpsPort,
    httpPort,
    host: text('WAYBILL_HOST') ?? '127.0.0.1',
    tls: certPath !== undefined && keyPath !== undefined ? { certPath: resolve(certPath), keyPath: resolve(keyPath) } : null,
    trustProxy,
    store,
    eventstoreConnectionString: connection,
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    metricsPort,
    rateLimit: { max: positive('WAYBILL_RATE_LIMIT', 1000), windowMs: positive('WAYBILL_RATE_LIMIT_WINDOW_MS', 1000) },
  }
}

function isAddressOrCidr(value: string): boolean {
  const [address, bits, ...rest] = value.split('/')
  if (rest.length > 0 || address === undefined) return false
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address)
  const isV4 = v4 !== null && v4.slice(1).every((octet) => Number(octet) <= 255)
  const isV6 = !isV4 && /^[0-9a-fA-F:]+$/.test(address) && address.includes(':')
  if (!isV4 && !isV6) return false
  if (bits === undefined) return true
  return /^\d+$/.test(bits) && Number(bits) <= (isV4 ? 32 : 128)
}
