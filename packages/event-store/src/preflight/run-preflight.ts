import { randomUUID } from 'node:crypto'
import type { EventStore } from '../port.js'
import { CheckFailed, preflightContext } from './check.js'
import type { PreflightCheck } from './check.js'
import { cleanClose } from './close-check.js'
import { catchUpAndResume, imageBearingEvent, readAfterWrite, readAllOrdering } from './read-checks.js'
import { createRace, expectedRevisionCases, idempotentReappend, racingReappend } from './write-checks.js'

/** The port's promises as `waybill store check` and the contract suite check them, in order. */
export const PREFLIGHT_CHECKS: readonly PreflightCheck[] = [
  expectedRevisionCases, createRace, idempotentReappend, racingReappend, readAfterWrite, readAllOrdering,
  catchUpAndResume, imageBearingEvent, cleanClose,
]

/** One check's outcome: whether the promise held, and if not, why. */
export interface PreflightResult {
  readonly name: string
  readonly ok: boolean
  /** Empty when it held; what broke otherwise (a check's finding, or an error the store threw). */
  readonly detail: string
  readonly ms: number
}

export interface PreflightOptions {
  /** Opens another store on the same configuration (the close check closes it). */
  readonly open: () => Promise<EventStore>
  /** The scratch category; `storecheck<random>` by default, so runs never meet. */
  readonly category?: string
  readonly checks?: readonly PreflightCheck[]
  /** Told after each check, for progress output. */
  readonly onResult?: (result: PreflightResult) => void
}

/** A fresh scratch category: `storecheck` and random hex, with no `-` (which would end a category). */
export function scratchCategory(): string {
  return `storecheck${randomUUID().replaceAll('-', '').slice(0, 12)}`
}

/**
 * Runs every check against `store`, each on its own streams in one scratch category, and
 * reports what holds. A check that throws anything fails with that error's message; the
 * remaining checks still run.
 */
export async function runPreflight(store: EventStore, options: PreflightOptions): Promise<PreflightResult[]> {
  const context = preflightContext(store, options.open, options.category ?? scratchCategory())
  const results: PreflightResult[] = []
  for (const check of options.checks ?? PREFLIGHT_CHECKS) {
    const started = performance.now()
    let detail = ''
    try {
      await check.run(context)
    } catch (error) {
      detail = error instanceof CheckFailed ? error.message : `${error instanceof Error ? error.name : 'Error'}: ${error instanceof Error ? error.message : String(error)}`
    }
    const result = { name: check.name, ok: detail === '', detail, ms: Math.round(performance.now() - started) }
    results.push(result)
    options.onResult?.(result)
  }
  return results
}
