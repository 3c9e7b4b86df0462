import type { IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'
import proxyAddr from '@fastify/proxy-addr'

/** Whether a request reached us over TLS end to end, as far as this instance can know. */
export type TransportCheck = (raw: IncomingMessage) => boolean

/**
 * Secure means: on our TLS socket, and, when it came from a trusted proxy (WAYBILL_TRUST_PROXY)
 * with an X-Forwarded-Proto, that header's last value (the one the proxy itself set) is `https`.
 * The plain-HTTP listener is never secure, whatever a header on it claims. Decided from the raw
 * request rather than Fastify's `request.protocol`, because the requests Fastify builds for its
 * framework errors (a path it cannot decode) do not apply trustProxy, and a key exposed through
 * the proxy must be revoked on that path too.
 */
export function transportCheck(trustProxy: readonly string[]): TransportCheck {
  const trusted = trustProxy.length > 0 ? proxyAddr.compile([...trustProxy]) : () => false
  return (raw) => {
    const socket = raw.socket as Partial<TLSSocket> | null
    if (socket?.encrypted !== true) return false
    const forwarded = raw.headers['x-forwarded-proto']
    if (forwarded === undefined || !trusted(socket.remoteAddress ?? '', 0)) return true
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',').pop()?.trim().toLowerCase()
    return last === 'https'
  }
}
