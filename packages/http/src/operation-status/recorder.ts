import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { OPERATIONS_DIR, type OperationStatus } from './status-file.js'

/** What a command tells of its run. */
export interface OperationRecorder {
  /** Work done so far, of `total` when known; written at most once a second. */
  progress(done: number, total?: number | null): void
  /** The run ended well; the first of `succeeded` and `failed` called stands. */
  succeeded(detail?: string): void
  failed(detail: string): void
}

const OPERATION_NAME = /^[a-z][a-z0-9-]{0,40}$/
const PROGRESS_EVERY_MS = 1_000

/**
 * Starts recording a run of `operation` in `<data dir>/operations/<operation>.json`
 * (`OperationStatus`): `running` now, then its progress, then how it ended. Each write replaces
 * the file whole (a temporary file renamed over it), so a reader sees one version or the next.
 * The last success is carried over from the previous file. Writes are synchronous and small: a
 * status that cannot be written (a full disk) is skipped, never a reason for the command to fail.
 */
export function recordOperation(dataDir: string, operation: string, now: () => Date = () => new Date()): OperationRecorder {
  if (!OPERATION_NAME.test(operation)) throw new RangeError(`not an operation name: "${operation}"`)
  const dir = join(dataDir, OPERATIONS_DIR)
  const path = join(dir, `${operation}.json`)
  const startedAt = now().toISOString()
  let status: OperationStatus = {
    operation, state: 'running', pid: process.pid, started_at: startedAt, updated_at: startedAt, finished_at: null,
    done: null, total: null, detail: null, last_success: previousSuccess(path),
  }
  let writtenAt = 0
  const write = (): void => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const temporary = `${path}.${process.pid}.tmp`
      writeFileSync(temporary, `${JSON.stringify(status)}\n`, { mode: 0o600 })
      renameSync(temporary, path)
      writtenAt = Date.now()
    } catch {
      // The command's own output says how it went; this file is only what /metrics shows.
    }
  }
  let ended = false
  const end = (state: 'succeeded' | 'failed', detail: string | null): void => {
    // The first end stands: `recordedOperation` ends a run its command already ended itself.
    if (ended) return
    ended = true
    const at = now().toISOString()
    status = {
      ...status, state, updated_at: at, finished_at: at, detail,
      last_success: state === 'succeeded' ? { started_at: status.started_at, finished_at: at } : status.last_success,
    }
    write()
  }
  write()
  return {
    progress(done, total = null) {
      status = { ...status, done, total, updated_at: now().toISOString() }
      if (Date.now() - writtenAt >= PROGRESS_EVERY_MS) write()
    },
    succeeded: (detail) => end('succeeded', detail ?? null),
    failed: (detail) => end('failed', detail),
  }
}

/**
 * Runs `run` with a recorder for `operation`: success when it resolves, failure (with the
 * error's message) when it throws, which is thrown on. What a command wraps its work in.
 */
export async function recordedOperation<T>(dataDir: string, operation: string, run: (recorder: OperationRecorder) => Promise<T>): Promise<T> {
  const recorder = recordOperation(dataDir, operation)
  try {
    const result = await run(recorder)
    recorder.succeeded()
    return result
  } catch (error) {
    recorder.failed(error instanceof Error ? error.message : String(error))
    throw error
  }
}

function previousSuccess(path: string): OperationStatus['last_success'] {
  try {
    const previous = JSON.parse(readFileSync(path, 'utf8')) as Partial<OperationStatus>
    return previous.last_success ?? null
  } catch {
    return null
  }
}
