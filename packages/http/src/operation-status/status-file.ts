import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Where operator commands leave their status: `<data dir>/operations/<operation>.json`. */
export const OPERATIONS_DIR = 'operations'

/**
 * What a long operator command (`waybill rebuild`, `waybill backup`, …) says of its last run
 * (docs/operations.md#operation-status), rewritten whole (write, then rename) as it goes, and
 * read by the `/metrics` of `waybill serve` and `waybill projector`. Times are ISO 8601 UTC.
 */
export interface OperationStatus {
  /** The command: `rebuild`, `backup`, …; also the file's name. */
  readonly operation: string
  /** `running` until it ends; a run that was killed stays `running` until the next one. */
  readonly state: 'running' | 'succeeded' | 'failed'
  readonly pid: number
  readonly started_at: string
  readonly updated_at: string
  readonly finished_at: string | null
  /** Work done and the total expected (null when unknown), in the command's own unit. */
  readonly done: number | null
  readonly total: number | null
  /** One line: what it did, or why it failed. */
  readonly detail: string | null
  /** The last run that succeeded (this one, or an earlier one), kept across runs. */
  readonly last_success: { readonly started_at: string; readonly finished_at: string } | null
}

const STATES = new Set(['running', 'succeeded', 'failed'])

/** The status file of `operation`, or null when there is none (or it is not one). */
export async function readOperation(dataDir: string, operation: string): Promise<OperationStatus | null> {
  try {
    return parseStatus(await readFile(join(dataDir, OPERATIONS_DIR, `${operation}.json`), 'utf8'))
  } catch {
    return null
  }
}

/** Every operation's status in the data directory, by name. */
export async function readOperations(dataDir: string): Promise<OperationStatus[]> {
  const names = await readdir(join(dataDir, OPERATIONS_DIR)).catch(() => [])
  const found = await Promise.all(names.filter((name) => name.endsWith('.json')).map((name) => readOperation(dataDir, name.slice(0, -'.json'.length))))
  return found.filter((status) => status !== null).sort((a, b) => a.operation.localeCompare(b.operation))
}

function parseStatus(text: string): OperationStatus | null {
  const value = JSON.parse(text) as Partial<OperationStatus> | null
  if (typeof value !== 'object' || value === null) return null
  if (typeof value.operation !== 'string' || !STATES.has(value.state as string) || typeof value.started_at !== 'string') return null
  return value as OperationStatus
}
