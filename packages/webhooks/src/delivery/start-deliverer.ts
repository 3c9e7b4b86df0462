import type { Database } from 'better-sqlite3'
import { sleep, type EventStore } from '@waybill/event-store'
import type { SubjectKeyStore } from '@waybill/personal-data'
import {
  startProjectionLoop, storeEventSource, type EventSource, type ProjectionLoop, type ProjectionStatus, type ProjectorLogger,
  type StoreEventSourceOptions,
} from '@waybill/projector'
import { backlogOf } from '../db/queue.js'
import { openWebhookDb } from '../db/open-db.js'
import type { Endpoint } from '../endpoints/endpoint.js'
import { startDeliveryLoop, type DeliveryLoop, type DeliverySettings } from './delivery-loop.js'
import { Outbox } from './outbox.js'
import { outboxProjection } from './outbox-projection.js'
import { DEFAULT_RETRY_SCHEDULE } from './schedule.js'
import { ATTEMPT_OUTCOMES, type AttemptOutcome } from './send.js'

/** The metadata a message is queued with: when its event was accepted (replay ranges, the backlog's age). */
const QUEUE_METADATA_KEYS = ['received_at']

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  retry: { schedule: DEFAULT_RETRY_SCHEDULE },
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
  concurrency: 4,
  pollMs: 1_000,
}

export interface WebhookDelivererOptions {
  /** The log the endpoints' queues follow, and where each message's event is read when sent. */
  readonly store: EventStore
  /** The subject keys each message's event is opened with when sent (docs/personal-data.md#erasure). */
  readonly keys: Pick<SubjectKeyStore, 'get'>
  /** Where `webhooks.sqlite` is. */
  readonly dataDir: string
  readonly logger?: ProjectorLogger
  /** Where notices of appends come from (as `storeEventSource` takes them); the store's own when absent. */
  readonly onAppended?: StoreEventSourceOptions['onAppended']
  readonly settings?: Partial<DeliverySettings>
  /** The clock (epoch ms); tests pass their own. */
  readonly now?: () => number
  /** How often the endpoints are read again (added, removed), and how often the backlog is counted. Default 1 s. */
  readonly refreshMs?: number
  /** Events a queue takes per transaction. Default 1,000. */
  readonly batchSize?: number
}

/** Where one endpoint stands: what `waybill projector` prints and `/metrics` reports. */
export interface WebhookEndpointStatus {
  readonly id: string
  readonly enabled: boolean
  readonly disabledReason: string | null
  /** Messages not yet delivered, as last counted. */
  readonly backlog: number
  /** When the oldest of them was accepted; null when there is none. */
  readonly oldestPendingAt: string | null
  /** Its queue, as a projection of the log (state, checkpoint, lag in events). */
  readonly queue: ProjectionStatus
  /** Attempts since this process started, by outcome. */
  readonly attempts: Readonly<Record<AttemptOutcome, number>>
}

export interface WebhookDeliverer {
  status(): WebhookEndpointStatus[]
  /** Stops every endpoint's loops (attempts in flight are cut); resolves once the file is closed. */
  stop(): Promise<void>
}

interface Runner {
  readonly endpoint: Endpoint
  readonly abort: AbortController
  readonly queue: ProjectionLoop
  readonly delivery: DeliveryLoop
  readonly source: EventSource
  readonly attempts: Record<AttemptOutcome, number>
  /** The endpoint and its backlog as last read (every `refreshMs`), for `status()`. */
  current: Endpoint
  backlog: { pending: number; oldestReceivedAt: string | null }
}

/**
 * Delivers the operator's webhooks from this process (docs/design.md#webhooks): for each endpoint
 * in `webhooks.sqlite`, a projection of the log that queues its messages (run by the projector's
 * own `startProjectionLoop`, with its own source and checkpoint) and a loop that sends them.
 * Endpoints added or removed by `waybill webhooks` are picked up within `refreshMs`. Run it where
 * the projector runs, in one process only.
 */
export function startWebhookDeliverer(options: WebhookDelivererOptions): WebhookDeliverer {
  const log = options.logger ?? { info() {}, warn() {}, error() {} }
  const now = options.now ?? Date.now
  const settings: DeliverySettings = { ...DEFAULT_DELIVERY_SETTINGS, ...options.settings }
  const refreshMs = options.refreshMs ?? 1_000
  const stopping = new AbortController()
  const runners = new Map<string, Runner>()
  let db: Database | null = null
  let outbox: Outbox | null = null
  let failing = false

  const start = (opened: Outbox, endpoint: Endpoint): Runner => {
    const abort = new AbortController()
    const attempts = Object.fromEntries(ATTEMPT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<AttemptOutcome, number>
    const source = storeEventSource(options.store, {
      metadataKeys: QUEUE_METADATA_KEYS,
      ...(options.onAppended === undefined ? {} : { onAppended: options.onAppended, coalesceMs: 0 }),
    })
    const delivery = startDeliveryLoop({
      outbox: opened, endpoint, store: options.store, keys: options.keys, settings, now, log, signal: abort.signal,
      onAttempt: (outcome) => { attempts[outcome] += 1 },
    })
    const queue = startProjectionLoop({
      projection: outboxProjection(opened, endpoint, now, () => { delivery.wake() }),
      source, log, signal: abort.signal,
      batchSize: options.batchSize ?? 1000, pollMs: settings.pollMs, retry: { initialMs: 100, maxMs: 5_000 },
    })
    return { endpoint, abort, queue, delivery, source, attempts, current: endpoint, backlog: backlogOf(opened.db, endpoint.id) }
  }
  const finish = async (runner: Runner): Promise<void> => {
    runner.abort.abort()
    await Promise.all([runner.queue.done, runner.delivery.done])
    runner.source.close?.()
  }

  const refresh = (): void => {
    if (outbox === null) {
      db = openWebhookDb(options.dataDir, 'deliverer')
      outbox = new Outbox(db)
    }
    const endpoints = outbox.endpoints()
    const ids = new Set(endpoints.map((endpoint) => endpoint.id))
    for (const [id, runner] of runners) {
      if (ids.has(id)) continue
      runners.delete(id)
      void finish(runner)
      log.info({ endpoint: id }, `webhooks: endpoint ${id} removed`)
    }
    for (const endpoint of endpoints) {
      const runner = runners.get(endpoint.id)
      if (runner === undefined) {
        runners.set(endpoint.id, start(outbox, endpoint))
        continue
      }
      runner.current = endpoint
      runner.backlog = backlogOf(outbox.db, endpoint.id)
      runner.delivery.wake()
    }
  }

  const run = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        refresh()
        if (failing) log.info({}, 'webhooks: the endpoints can be read again')
        failing = false
      } catch (error) {
        if (!failing) log.error({ err: error }, 'webhooks: cannot read the endpoints; trying again')
        failing = true
      }
      await sleep(refreshMs, stopping.signal)
    }
    await Promise.all([...runners.values()].map(finish))
    runners.clear()
    db?.close()
  }
  const done = run()

  return {
    status: () => [...runners.values()].map((runner): WebhookEndpointStatus => ({
      id: runner.endpoint.id,
      enabled: runner.current.disabledAt === null,
      disabledReason: runner.current.disabledReason,
      backlog: runner.backlog.pending,
      oldestPendingAt: runner.backlog.oldestReceivedAt,
      queue: runner.queue.status(),
      attempts: { ...runner.attempts },
    })),
    stop: async () => {
      stopping.abort()
      await done
    },
  }
}
