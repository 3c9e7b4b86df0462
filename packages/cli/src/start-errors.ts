import { ConfigError, type WaybillConfig } from './config.js'

type SystemError = NodeJS.ErrnoException & { readonly port?: number; readonly library?: string }

/**
 * A start-up failure that comes from a configured value (a port in use, a host that does not
 * resolve, an unreadable or unusable TLS file, a data dir that is not a directory) as the
 * ConfigError naming that variable; anything else unchanged. The environment is validated at
 * start (docs/design.md, "Configuration"), but these only show when the server tries them.
 */
export function explainStartError(error: unknown, config: WaybillConfig): unknown {
  if (error instanceof ConfigError || typeof error !== 'object' || error === null) return error
  const e = error as SystemError
  if ((e.code === 'EADDRINUSE' || e.code === 'EACCES') && typeof e.port === 'number') {
    const variable = portVariable(e.port, config)
    if (variable !== null) {
      return new ConfigError(variable, e.code === 'EADDRINUSE'
        ? `port ${e.port} on ${config.host} is already in use`
        : `port ${e.port} on ${config.host} needs privileges this user lacks`)
    }
  }
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'EADDRNOTAVAIL') {
    return new ConfigError('WAYBILL_HOST', `cannot listen on "${config.host}": ${e.message}`)
  }
  if (config.tls !== null && typeof e.path === 'string') {
    if (e.path === config.tls.certPath) return new ConfigError('WAYBILL_TLS_CERT', `cannot read ${e.path}: ${e.code ?? e.message}`)
    if (e.path === config.tls.keyPath) return new ConfigError('WAYBILL_TLS_KEY', `cannot read ${e.path}: ${e.code ?? e.message}`)
  }
  // OpenSSL's refusal of a certificate or key that is not PEM, or of a pair that does not match.
  if (config.tls !== null && (e.code?.startsWith('ERR_OSSL') === true || typeof e.library === 'string')) {
    return new ConfigError('WAYBILL_TLS_CERT', `WAYBILL_TLS_CERT and WAYBILL_TLS_KEY are not a usable PEM certificate and private key: ${e.message}`)
  }
  if (typeof e.path === 'string' && (e.path === config.dataDir || e.path.startsWith(`${config.dataDir}/`)) &&
    ['EEXIST', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS'].includes(e.code ?? '')) {
    return new ConfigError('WAYBILL_DATA_DIR', `${config.dataDir} cannot be used as the data directory: ${e.code ?? ''} on ${e.path}`)
  }
  return error
}

function portVariable(port: number, config: WaybillConfig): string | null {
  if (port === config.httpsPort) return 'WAYBILL_HTTPS_PORT'
  if (port === config.httpPort) return 'WAYBILL_HTTP_PORT'
  if (port === config.metrics.port) return 'WAYBILL_METRICS_PORT'
  return null
}
