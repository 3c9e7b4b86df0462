import type { Socket } from 'node:net'
import type { Server as TlsServer } from 'node:tls'

/** A TLS record that opens a connection starts with this byte (content type 22, handshake). */
const TLS_HANDSHAKE = 0x16

/**
 * Makes the HTTPS server look at the first byte of every connection before TLS does: a TLS
 * handshake goes on to the server as usual; anything else is plain HTTP sent to the HTTPS port,
 * whose bytes (and the key they may carry, which crossed the network in the clear all the same)
 * go to `plain`. The server keeps listening, counting and closing connections itself; only its
 * connection listeners are put behind the look. A client that sends nothing within `firstByteMs`
 * is dropped, as a stalled TLS handshake would be. `admit` sees every connection first (the
 * per-address cap) and may refuse it.
 */
export function divertPlainHttp(server: TlsServer, plain: (socket: Socket) => void, firstByteMs: number, admit: (socket: Socket) => boolean = () => true): void {
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) return
    const timer = setTimeout(() => socket.destroy(), firstByteMs)
    socket.on('error', () => socket.destroy())
    socket.once('data', (first: Buffer) => {
      clearTimeout(timer)
      socket.pause()
      socket.unshift(first)
      if (first[0] === TLS_HANDSHAKE) for (const listener of listeners) listener.call(server, socket)
      else plain(socket)
      process.nextTick(() => socket.resume())
    })
  })
}
