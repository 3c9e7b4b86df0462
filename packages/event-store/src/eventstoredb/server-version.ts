import type { EventStoreDBClient } from '@eventstore/db-client'

/** The oldest server whose stream reads carry each event's real position in the log. */
export const MINIMUM_SERVER_VERSION = { major: 22, minor: 6 } as const

/** What the client learns from the server's feature list at its first call. */
interface ServerFeatures {
  readonly serverVersion: string
}

/**
 * The server version the client reports. The client keeps it behind a getter its typings mark
 * protected (`capabilities`, the feature list it asks every server for); reading it through
 * this one narrow type is the one place Waybill leans on that. Servers before 21.10 do not
 * answer the call, and the client then reports "unknown".
 */
export async function serverVersionOf(client: EventStoreDBClient): Promise<string> {
  const features = await (client as unknown as { readonly capabilities: Promise<ServerFeatures> }).capabilities
  return features.serverVersion
}

/**
 * Why Waybill cannot run on this server version, or null. Before 22.6 a read of a stream gives
 * every event the position 2^64−1 instead of its place in the log, which would put every
 * append result, hash-chain read and checkpoint in the wrong place; "unknown" is older still.
 */
export function serverVersionProblem(version: string): string | null {
  const parsed = /^(\d+)\.(\d+)/.exec(version.trim())
  const { major, minor } = MINIMUM_SERVER_VERSION
  const needed = `EventStoreDB ${major}.${minor} or later is needed (stream reads before it carry no event positions)`
  if (parsed === null) return `the server does not report its version (older than 21.10?): ${needed}`
  const [serverMajor, serverMinor] = [Number(parsed[1]), Number(parsed[2])]
  if (serverMajor > major || (serverMajor === major && serverMinor >= minor)) return null
  return `the server is ${version}: ${needed}`
}
