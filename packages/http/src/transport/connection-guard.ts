import type { Socket } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'

export interface ConnectionLimits {
  /** Connections one client address may hold open on each listener; a trusted proxy is not counted. Default 256. */
  readonly perAddress?: number
  /**
   * Plain-HTTP connections (the plain listener's, and those diverted from the HTTPS port) open at
   * once. Default 64, and at most a quarter of a listener's `maxConnections`: a diverted socket
   * counts against the HTTPS listener's, so the rest is always left to TLS clients.
   */
  readonly plainConnections?: number
  /** How long a plain-HTTP connection may live from accept, whatever its client does. Default 15,000 ms. */
  readonly plainLifetimeMs?: number
}

const DEFAULTS = { perAddress: 256, plainConnections: 64, plainLifetimeMs: 15_000 } as const

/**
 * Bounds what one client can hold open (docs/contract.md#connections). Every connection counts
 * against its address on the listener that accepted it, so one address cannot fill a listener's
 * `maxConnections`; plain-HTTP connections, which exist only to be refused, have a small cap of
 * their own and a hard lifetime from accept, so refused sockets a client never closes cannot
 * starve the TLS clients of the same port. A connection past a bound is destroyed at once.
 */
export class ConnectionGuard {
  private readonly limits: Required<ConnectionLimits>
  private readonly trusted: (address: string) => boolean
  private plain = 0

  constructor(limits: ConnectionLimits = {}, trustProxy: readonly string[] = [], maxConnections = Number.POSITIVE_INFINITY) {
    const merged = { ...DEFAULTS, ...limits }
    this.limits = { ...merged, plainConnections: Math.max(1, Math.min(merged.plainConnections, Math.floor(maxConnections / 4))) }
    const compiled = trustProxy.length > 0 ? proxyAddr.compile([...trustProxy]) : null
    this.trusted = compiled === null ? () => false : (address) => compiled(address, 0)
  }

  /** One listener's count per address: call it for each listener, then `admit` each accepted socket. */
  perListener(): (socket: Socket) => boolean {
    const open = new Map<string, number>()
    return (socket) => {
      const address = socket.remoteAddress ?? ''
      if (this.trusted(address)) return true
      const count = open.get(address) ?? 0
      if (count >= this.limits.perAddress) {
        socket.destroy()
        return false
      }
      open.set(address, count + 1)
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1
        if (left <= 0) open.delete(address)
        else open.set(address, left)
      })
      return true
    }
  }

  /** Admits a plain-HTTP socket under the plain cap, and ends it at its hard lifetime. */
  admitPlain(socket: Socket): boolean {
    if (this.plain >= this.limits.plainConnections) {
      socket.destroy()
      return false
    }
    this.plain += 1
    const lifetime = setTimeout(() => socket.destroy(), this.limits.plainLifetimeMs)
    socket.once('close', () => {
      clearTimeout(lifetime)
      this.plain -= 1
    })
    return true
  }
}
