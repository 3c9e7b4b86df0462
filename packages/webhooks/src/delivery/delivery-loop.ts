import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import { WAYBILL_VERSION } from '@waybill/domain'
import { backoffDelay, type BackoffPolicy, type EventStore } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import type { ProjectorLogger } from '@waybill/projector'
import type { Endpoint } from '../endpoints/endpoint.js'
import { readMessageEvent } from '../message/message-event.js'
import { webhookMessage } from '../message/webhook-message.js'
import { signatureHeader } from '../signing/sign.js'
import type { DueMessage, Outbox, RetryPolicy } from './outbox.js'
import { postWebhook, type AttemptOutcome, type SendResult } from './send.js'

/** How one endpoint is delivered to (docs/operations.md#webhooks). */
export interface DeliverySettings {
  /** Retries after a failed attempt; the endpoint is disabled once they are spent. */
  readonly retry: RetryPolicy
  /** One attempt, connection to the end of the answer, at most this long. Default 10 s. */
  readonly timeoutMs: number
  /** Bytes of an answer read at most. Default 64 KiB. */
  readonly maxResponseBytes: number
  /** Requests in flight to one endpoint at most (one per order). Default 4. */
  readonly concurrency: number
  /** Longest wait between looks at the queue when nothing wakes the loop (the operator's enable, replay). Default 1 s. */
  readonly pollMs: number
}

export interface DeliveryLoopOptions {
  readonly outbox: Outbox
  readonly endpoint: Endpoint
  /** Where each message's event is read from when it is sent. */
  readonly store: Pick<EventStore, 'readStream'>
  /** The keys it is opened with: a message built after an erasure carries its personal fields null. */
  readonly keys: Pick<SubjectKeyStore, 'get'>
  readonly settings: DeliverySettings
  readonly now: () => number
  readonly log: ProjectorLogger
  readonly signal: AbortSignal
  /** Told of every attempt's outcome (the attempts metric). */
  readonly onAttempt: (outcome: AttemptOutcome) => void
}

export interface DeliveryLoop {
  /** Looks at the queue now: messages were queued, or the operator changed something. */
  wake(): void
  /** Settles once the loop has stopped and its attempts in flight have ended. */
  readonly done: Promise<void>
}

/** The loop's own retry when the store or the file fails it (not a receiver's failure). */
const LOOP_RETRY: BackoffPolicy = { initialMs: 100, maxMs: 5_000 }

/** The longest pause between two attempts to an endpoint whose attempts all fail: how soon its recovery is seen. */
const PROBE_MAX_MS = 60_000

/**
 * Sends one endpoint's due messages, at most `concurrency` at a time and never two of one order:
 * the queue makes only the first undelivered message of each order due, so an order's later
 * events wait behind a failing one while other orders go on. A disabled or held endpoint sends
 * nothing. Each endpoint has its own loop and its own connections, so a slow or dead receiver
 * holds up only itself, and the loop runs beside the log's projections, never on a request's path.
 *
 * A receiver that fails every attempt (down, refusing connections, answering 500 at once) would be
 * sent every waiting order's first message as fast as each fails, costing the projector's thread
 * a core for nothing. So after `concurrency` failures in a row the endpoint is *probed*: one
 * attempt at a time, each after a pause that follows the schedule up to a minute, until one
 * delivers; then all its orders go on at full concurrency again.
 */
export function startDeliveryLoop(options: DeliveryLoopOptions): DeliveryLoop {
  const { outbox, endpoint, settings, now, log, signal } = options
  const url = new URL(endpoint.url)
  const agentOptions = { keepAlive: true, maxSockets: settings.concurrency }
  const agent = url.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions)
  const inflight = new Set<number>()
  const attempts = new Set<Promise<void>>()
  let wakeUp: (() => void) | null = null
  let woken = false
  // After the store or the file failed: no new attempt before this (epoch ms).
  let pausedUntil = 0
  let failures = 0
  let failing = false
  // The receiver's failures since its last delivery; from `concurrency` on, the endpoint is probed.
  let failuresInARow = 0
  let probeAt = 0
  const probing = (): boolean => failuresInARow >= settings.concurrency
  const probePause = (probe: number): number => {
    const { schedule } = settings.retry
    return Math.min(schedule[Math.min(probe, schedule.length - 1)] ?? PROBE_MAX_MS, PROBE_MAX_MS)
  }

  const wake = (): void => {
    if (wakeUp === null) woken = true
    else wakeUp()
  }
  const rest = (ms: number): Promise<void> => new Promise((resolve) => {
    if (woken || signal.aborted) {
      woken = false
      resolve()
      return
    }
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      wakeUp = null
      resolve()
    }
    const timer = setTimeout(done, Math.max(0, ms))
    signal.addEventListener('abort', done)
    wakeUp = done
  })
  const failed = (error: unknown): void => {
    if (!failing) log.error({ err: error, endpoint: endpoint.id }, `webhooks: endpoint ${endpoint.id} cannot deliver; retrying with backoff`)
    failing = true
    pausedUntil = now() + backoffDelay(failures, LOOP_RETRY)
    failures += 1
  }

  const attempt = async (current: Endpoint, message: DueMessage): Promise<void> => {
    const result = await send(current, message)
    // Cut by the stop: not the receiver's doing; the message is sent again after the restart.
    if (signal.aborted && result.status === null) return
    const recorded = outbox.record(current, message, result, now(), settings.retry)
    if (recorded !== 'forgotten') options.onAttempt(result.outcome)
    if (recorded === 'retry') {
      failuresInARow += 1
      if (probing()) probeAt = now() + probePause(failuresInARow - settings.concurrency)
    } else failuresInARow = 0
    if (recorded === 'disabled') {
      log.error({ endpoint: current.id, webhookId: message.webhookId, reason: outbox.endpoint(current.id)?.disabledReason },
        `webhooks: endpoint ${current.id} disabled`)
    }
    if (failing) log.info({ endpoint: endpoint.id }, `webhooks: endpoint ${endpoint.id} delivers again`)
    failing = false
    failures = 0
  }

  const send = async (current: Endpoint, message: DueMessage): Promise<SendResult> => {
    // Read when sent, not when queued: the message is what the stored event says now.
    const [stored] = await options.store.readStream(message.stream, { fromRevision: message.revision, maxCount: 1 })
    let body: string
    try {
      if (stored?.id !== message.eventId) throw new Error(`event ${message.eventId} is not at revision ${message.revision} of ${message.stream}`)
      const { envelope, event } = readMessageEvent(stored, options.keys)
      body = JSON.stringify(webhookMessage(envelope, event))
    } catch (error) {
      return { outcome: 'error', status: null, durationMs: 0, error: `no message could be made: ${(error as Error).message}` }
    }
    const timestamp = Math.floor(now() / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Waybill/${WAYBILL_VERSION} webhooks`,
      'webhook-id': message.webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(message.webhookId, timestamp, body, outbox.secrets(current.id, now())),
    }
    return postWebhook(url, headers, body, { timeoutMs: settings.timeoutMs, maxResponseBytes: settings.maxResponseBytes, agent, signal })
  }

  /** Starts attempts for the due messages there is room for; how long to wait before looking again. */
  const step = (): number | null => {
    const current = outbox.endpoint(endpoint.id)
    if (current === null) return null
    const at = now()
    if (current.disabledAt !== null) {
      // Enabled again by the operator: at full concurrency at once.
      failuresInARow = 0
      return settings.pollMs
    }
    if (at < pausedUntil) return Math.min(settings.pollMs, pausedUntil - at)
    if (current.holdUntil !== null && at < current.holdUntil) return Math.min(settings.pollMs, current.holdUntil - at)
    if (probing() && at < probeAt) return Math.min(settings.pollMs, probeAt - at)
    const limit = probing() ? 1 : settings.concurrency
    if (inflight.size < limit) {
      for (const message of outbox.due(endpoint.id, at, limit + inflight.size)) {
        if (inflight.size >= limit) break
        if (inflight.has(message.seq)) continue
        inflight.add(message.seq)
        const running: Promise<void> = attempt(current, message).catch(failed).finally(() => {
          inflight.delete(message.seq)
          attempts.delete(running)
          wake()
        })
        attempts.add(running)
      }
    }
    const next = outbox.nextDueAfter(endpoint.id, at)
    return next === null ? settings.pollMs : Math.min(settings.pollMs, next - at)
  }

  const run = async (): Promise<void> => {
    while (!signal.aborted) {
      let waitMs: number | null
      try {
        waitMs = step()
      } catch (error) {
        failed(error)
        waitMs = pausedUntil - now()
      }
      if (waitMs === null) break
      await rest(waitMs)
    }
    await Promise.allSettled([...attempts])
    agent.destroy()
  }

  return { wake, done: run() }
}
