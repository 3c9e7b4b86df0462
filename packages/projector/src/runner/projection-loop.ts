import { backoffDelay, sleep, type BackoffPolicy, type Position } from '@waybill/event-store'
import type { EventSource } from './event-source.js'
import { lagCounter } from './lag.js'
import type { ProjectorLogger } from './logger.js'
import type { AppliedCount, Projection } from './projection.js'
import { nextStatus, STARTING, type LoopEvent, type ProjectionStatus } from './status.js'

export interface ProjectionLoopOptions<Outcome extends AppliedCount> {
  readonly projection: Projection<Outcome>
  /** This loop's own source: it waits for appends on it. */
  readonly source: EventSource
  readonly batchSize: number
  /** Longest wait between polls when nothing wakes the loop. */
  readonly pollMs: number
  readonly retry: BackoffPolicy
  readonly log: ProjectorLogger
  /** Aborting stops the loop after the batch in flight. */
  readonly signal: AbortSignal
  /** Told of every change of the status (the projector wakes its `waitFor`s). */
  readonly onChange?: () => void
}

export interface ProjectionLoop {
  status(): ProjectionStatus
  /** The checkpoint after the last committed batch, null before the first. */
  checkpoint(): Position | null
  /** Settles once the loop has stopped and closed its projection. */
  readonly done: Promise<void>
}

/**
 * Keeps one projection current: pull a batch after its checkpoint, apply it (checkpoint moved in
 * the same transaction), count the lag, and when the read reached the end of the log wait for
 * appends. Any failure (the store away, a full disk, a refused file) closes the projection and
 * retries from its stored checkpoint after `backoffDelay`; the next batch reopens the live file,
 * which also follows a rebuild's swap.
 */
export function startProjectionLoop<Outcome extends AppliedCount>(options: ProjectionLoopOptions<Outcome>): ProjectionLoop {
  const { projection, source, log, signal } = options
  const countLag = lagCounter(source)
  let status = STARTING
  let checkpoint: Position | null = null
  const update = (event: LoopEvent): void => {
    status = nextStatus(status, event)
    options.onChange?.()
  }

  const step = async (): Promise<boolean> => {
    const writer = projection.open()
    const batch = await source.pull(writer.checkpoint(), options.batchSize)
    // The checkpoint moves to the last position this read saw, past other categories, and no
    // further: a head read separately may come from another moment or another node.
    const outcome = writer.applyBatch(batch.events, batch.through)
    projection.afterBatch?.(outcome, batch.complete)
    checkpoint = writer.checkpoint()
    const lag = await countLag(checkpoint, batch.complete)
    update({ kind: 'batch', path: writer.path, checkpoint, applied: outcome.applied, caughtUp: batch.complete, ...(lag === undefined ? {} : { lag }) })
    return batch.complete
  }

  const run = async (): Promise<void> => {
    let failures = 0
    while (!signal.aborted) {
      const retrying = status.state === 'retrying'
      try {
        const caughtUp = await step()
        if (retrying) log.info({ projection: projection.name }, `projector: ${projection.name} resumed`)
        failures = 0
        if (caughtUp) await source.waitForMore(options.pollMs, signal)
      } catch (error) {
        if (!retrying) log.error({ err: error, projection: projection.name }, `projector: ${projection.name} batch failed; retrying with backoff`)
        update({ kind: 'failed', error })
        projection.close()
        await sleep(backoffDelay(failures, options.retry), signal)
        failures += 1
      }
    }
    // After a committed batch only: a failed one closed the file, and nothing is to be added.
    if (status.state !== 'retrying') projection.beforeStop?.()
    projection.close()
    update({ kind: 'stopped' })
  }

  return { status: () => status, checkpoint: () => checkpoint, done: run() }
}
