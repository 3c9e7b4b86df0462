/**
 * A stand-in for an EventStoreDB cluster behind @eventstore/db-client 6.2.1, for the adapter's
 * tests on a machine with no server. It answers in the client's own shapes (append results,
 * resolved events, stream metadata) and fails with the client's own error classes, built by the
 * client's own `convertToCommandError` and `ServerFeatures`. It plays the server behaviours the
 * adapter must cope with, as EventStoreDB 24.10 has them:
 * - an exact expected revision equal to the stream's checks no ids (only one behind it does);
 *   `any` recognises a retry only among the stream's last 64 events; ids come back lowercased;
 * - an identical append that arrives while the first is not yet replicated is dropped and the
 *   client times out (`replicationMs`);
 * - a soft-deleted stream reads as not found and a `no_stream` append continues its numbering;
 *   a tombstoned one throws `StreamDeletedError`;
 * - positions are byte offsets in the transaction file, not event counts;
 * - a follower (a read without `requiresLeader`) may trail the leader (`followerLag`);
 * - `dispose()` cuts appends in flight with `UnknownError`, as the client's does.
 */
import { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { convertToCommandError, StreamDeletedError, StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client'
import type { EventStoreDBClient } from '@eventstore/db-client'

// The client's own class for what the server says of itself (not exported from its index).
const require = createRequire(import.meta.url)
const { ServerFeatures } = require('@eventstore/db-client/dist/Client/ServerFeatures.js') as {
  ServerFeatures: new (error: Error | null, methods: { getEventStoreServerVersion(): string; getMethodsList(): [] }) => { serverVersion: string }
}

type Pos = { commit: bigint; prepare: bigint }
interface Stored { streamId: string; id: string; type: string; revision: bigint; data: unknown; metadata: unknown; position: Pos; created: Date; isJson: true }
type Sent = { id: string; type: string; data: unknown; metadata?: unknown }
type Options = Record<string, unknown>

/** A gRPC failure as the client receives it, turned into the client's error class by the client. */
function grpcFailure(code: number, message: string): Error {
  const failure: Parameters<typeof convertToCommandError>[0] = Object.assign(new Error(message), { code, details: message, metadata: { getMap: () => ({}) } })
  return convertToCommandError(failure)
}
const DEADLINE_EXCEEDED = 4
const UNKNOWN = 2

export class ScriptedServer {
  readonly streams = new Map<string, Stored[]>()
  readonly log: Stored[] = []
  readonly truncateBefore = new Map<string, number>()
  readonly tombstoned = new Set<string>()
  readonly calls: Array<{ method: string; options: Options }> = []
  version = '24.10.0'
  /** How long an append stays unreplicated; an identical append meanwhile is dropped. */
  replicationMs = 0
  /** How many of the newest events a read without `requiresLeader` does not see yet. */
  followerLag = 0
  /** Reads that never answer (the client gives them no deadline). */
  hangReads = false
  throwOnAppendFailure = true
  #bytes = 1000n
  readonly #pending = new Map<string, Promise<void>>()
  readonly #inFlight = new Set<(error: Error) => void>()
  readonly #appended = new EventEmitter()

  /** Soft delete: reads say not found; the numbering goes on from where it was. */
  softDelete(stream: string): void {
    this.truncateBefore.set(stream, Number(this.#lastRevision(stream) + 1n))
  }

  client(): EventStoreDBClient {
    const version = (): string => this.version
    const client = {
      appendToStream: (stream: string, events: Sent[], options: Options = {}) => this.#append(stream, events, options),
      readStream: (stream: string, options: Options = {}) => this.#read('readStream', options, () => this.#readStream(stream, options)),
      readAll: (options: Options = {}) => this.#read('readAll', options, () => this.#readAll(options)),
      getStreamMetadata: async (stream: string, options: Options = {}) => {
        this.calls.push({ method: 'getStreamMetadata', options })
        const truncateBefore = this.truncateBefore.get(stream)
        return truncateBefore === undefined ? { streamName: stream } : { streamName: stream, metadata: { truncateBefore } }
      },
      subscribeToAll: (options: Options = {}) => this.#subscribe(options),
      dispose: async () => {
        for (const cut of this.#inFlight) cut(grpcFailure(UNKNOWN, 'Call cancelled'))
      },
      get capabilities() {
        return Promise.resolve(new ServerFeatures(null, { getEventStoreServerVersion: version, getMethodsList: () => [] }))
      },
    }
    return client as unknown as EventStoreDBClient
  }

  #lastRevision(stream: string): bigint {
    return this.streams.get(stream)?.at(-1)?.revision ?? -1n
  }

  /** The revision the server checks against: a soft-deleted stream counts as absent. */
  #visibleRevision(stream: string): bigint {
    const last = this.#lastRevision(stream)
    return last < BigInt(this.truncateBefore.get(stream) ?? 0) ? -1n : last
  }

  async #append(stream: string, sent: Sent[], options: Options): Promise<unknown> {
    this.calls.push({ method: 'appendToStream', options })
    if (this.tombstoned.has(stream)) throw StreamDeletedError.fromStreamName(stream)
    const key = `${stream}:${sent.map((e) => e.id.toLowerCase()).join(',')}`
    const pending = this.#pending.get(key)
    if (pending !== undefined) {
      // IdempotentNotReady: the server drops the duplicate; the client waits out its deadline.
      await pending
      throw grpcFailure(DEADLINE_EXCEEDED, 'Deadline Exceeded')
    }
    const expected = options.expectedRevision as bigint | string
    const current = this.#visibleRevision(stream)
    const events = this.streams.get(stream) ?? []
    const ids = sent.map((e) => e.id.toLowerCase())
    const standsAt = (from: bigint): boolean => ids.every((id, i) => events.find((e) => e.revision === from + BigInt(i))?.id === id)
    const answer = (last: Stored): unknown => ({ success: true, nextExpectedRevision: last.revision, position: last.position })
    const conflict = (): unknown => {
      if (!this.throwOnAppendFailure) return { success: false, nextExpectedRevision: current, position: undefined }
      throw new WrongExpectedVersionError(undefined, { streamName: stream, expected: expected as never, current: current < 0n ? 'no_stream' : current })
    }
    if (typeof expected === 'bigint' && expected !== current) {
      if (expected < current && standsAt(expected + 1n)) return answer(events.find((e) => e.id === ids.at(-1))!)
      return conflict()
    }
    if (expected === 'no_stream' && current !== -1n) return standsAt(0n) ? answer(events.find((e) => e.id === ids.at(-1))!) : conflict()
    if (expected === 'stream_exists' && current === -1n) return conflict()
    if (expected === 'any' || expected === 'stream_exists') {
      const recent = events.slice(-64)
      const start = recent.findIndex((e) => e.id === ids[0])
      if (start >= 0 && standsAt(recent[start]!.revision)) return answer(events.find((e) => e.id === ids.at(-1))!)
    }
    // Written; numbering goes on from the stream's last revision even past a soft delete.
    let revision = this.#lastRevision(stream)
    const written = sent.map((e) => {
      revision += 1n
      this.#bytes += BigInt(100 + JSON.stringify(e.data).length)
      return { streamId: stream, id: e.id.toLowerCase(), type: e.type, revision, data: e.data, metadata: e.metadata ?? {}, position: { commit: this.#bytes, prepare: this.#bytes }, created: new Date(), isJson: true as const }
    })
    const commit = async (): Promise<unknown> => {
      this.streams.set(stream, [...(this.streams.get(stream) ?? []), ...written])
      this.log.push(...written)
      for (const event of written) this.#appended.emit('event', event)
      return { success: true, nextExpectedRevision: revision, position: written.at(-1)!.position }
    }
    if (this.replicationMs === 0) return commit()
    return new Promise((resolve, reject) => {
      const cut = (error: Error): void => { clearTimeout(timer); this.#pending.delete(key); reject(error) }
      this.#inFlight.add(cut)
      const replicated = new Promise<void>((done) => setTimeout(done, this.replicationMs))
      this.#pending.set(key, replicated)
      const timer = setTimeout(() => {
        this.#inFlight.delete(cut)
        this.#pending.delete(key)
        resolve(commit())
      }, this.replicationMs)
    })
  }

  #read(method: string, options: Options, events: () => Stored[]): AsyncIterable<unknown> & { cancel(): Promise<void> } {
    this.calls.push({ method, options })
    const hang = this.hangReads
    const lag = options.requiresLeader === true ? 0 : this.followerLag
    let cancelled = false
    return {
      cancel: async () => { cancelled = true },
      async *[Symbol.asyncIterator]() {
        if (hang) await new Promise<void>((resolve) => { const check = setInterval(() => { if (cancelled) { clearInterval(check); resolve() } }, 5) })
        if (cancelled) return
        for (const event of events().slice(0, lag === 0 ? undefined : -lag)) yield { event }
      },
    }
  }

  #readStream(stream: string, options: Options): Stored[] {
    if (this.tombstoned.has(stream)) throw StreamDeletedError.fromStreamName(stream)
    if (this.#visibleRevision(stream) < 0n) throw new StreamNotFoundError(undefined, stream)
    const all = this.streams.get(stream) ?? []
    const backwards = options.direction === 'backwards'
    const from = options.fromRevision
    let selected = backwards ? [...all].reverse() : all
    if (typeof from === 'bigint') selected = selected.filter((e) => (backwards ? e.revision <= from : e.revision >= from))
    return selected.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))
  }

  #readAll(options: Options): Stored[] {
    const backwards = options.direction === 'backwards'
    const from = options.fromPosition
    let selected = backwards ? [...this.log].reverse() : this.log
    if (typeof from === 'object' && from !== null) {
      const commit = (from as Pos).commit
      selected = selected.filter((e) => (backwards ? e.position.commit <= commit : e.position.commit >= commit))
    }
    return selected.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))
  }

  #subscribe(options: Options): AsyncIterable<unknown> & { unsubscribe(): Promise<void> } {
    this.calls.push({ method: 'subscribeToAll', options })
    const queue: Stored[] = []
    let wake: (() => void) | null = null
    let open = true
    const push = (event: Stored): void => { queue.push(event); wake?.() }
    this.#appended.on('event', push)
    const appended = this.#appended
    return {
      unsubscribe: async () => { open = false; appended.off('event', push); wake?.() },
      async *[Symbol.asyncIterator]() {
        while (open) {
          const next = queue.shift()
          if (next !== undefined) yield { event: next }
          else await new Promise<void>((resolve) => { wake = resolve })
        }
      },
    }
  }
}
