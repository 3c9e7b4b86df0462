import type { EventStore } from '@waybill/event-store'
import { startServer, type RunningServer, type ServerConfig } from '../server.js'
import { volatileStreams } from './volatile-streams.js'

/**
 * The benchmark's ceiling: the real server (HTTPS, key check, rate limit, body parsing, image
 * decoding and checks, validation, decide) on the same code paths as `waybill serve`, except
 * that orders live in memory and images are dropped once checked, so nothing waits for a disk.
 * `store` holds the API keys only. Not for production: it forgets every order when it stops.
 */
export function startCeilingServer(config: ServerConfig, store: EventStore): Promise<RunningServer> {
  return startServer(config, { store: volatileStreams(store), blobs: { put: async () => undefined } })
}
