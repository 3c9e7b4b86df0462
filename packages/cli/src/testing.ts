import type { Env, Output } from './command.js'
import { dispatch } from './dispatch.js'

/*
 * `@waybill/cli/testing`: `waybill` run in the test's own process, through the dispatcher that
 * main.ts runs, with its output collected in strings. Tests start a real process only where the
 * process is the point: signals, crashes, file modes (the umask), import cost.
 */

export interface Finished {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  /** The whole environment (default: none, so every setting is its default). */
  readonly env?: Env
  /** Stops a long-running command (serve, projector) as SIGTERM does, when aborted. */
  readonly signal?: AbortSignal
}

/** A string that collects what a command writes; `onWrite` is told after each write. */
function sink(onWrite: () => void): Output & { text: string } {
  return {
    text: '',
    write(text: string) {
      this.text += text
      onWrite()
      return true
    },
  }
}

/** Runs `waybill <args>` to completion. */
export async function runWaybill(args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  const running = startWaybill(args, options)
  return running.finished
}

export interface Running {
  /** What it wrote so far, stdout then stderr. */
  output(): string
  /** Resolves with the first match of `pattern` in its stdout; rejects if it ends first or after `timeoutMs` (15 s). */
  until(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
  /** Stops it as SIGTERM does (in-flight work finishes); resolves when it has ended, each time called. */
  stop(): Promise<Finished>
  readonly finished: Promise<Finished>
}

/** Starts `waybill <args>` (a long-running command: serve, projector) and returns at once. */
export function startWaybill(args: readonly string[], options: RunOptions = {}): Running {
  const controller = new AbortController()
  options.signal?.addEventListener('abort', () => controller.abort(options.signal?.reason), { once: true })
  const waiters = new Set<() => void>()
  const wake = (): void => { for (const waiter of waiters) waiter() }
  const stdout = sink(wake)
  const stderr = sink(wake)
  let ended = false
  const finished = dispatch(args, { env: options.env ?? {}, stdout, stderr, signal: controller.signal })
    .then((code) => ({ code, stdout: stdout.text, stderr: stderr.text }))
    .finally(() => { ended = true; wake() })
  const output = (): string => stdout.text + stderr.text
  return {
    output,
    finished,
    until: (pattern, timeoutMs = 15_000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`waybill ${args.join(' ')}: no ${String(pattern)} within ${timeoutMs} ms:\n${output()}`)), timeoutMs)
      const check = (): void => {
        const match = pattern.exec(stdout.text)
        if (match !== null) done(match)
        else if (ended) done(new Error(`waybill ${args.join(' ')} ended before writing ${String(pattern)}:\n${output()}`))
      }
      const done = (result: RegExpExecArray | Error): void => {
        clearTimeout(timer)
        waiters.delete(check)
        if (result instanceof Error) reject(result)
        else resolve(result)
      }
      waiters.add(check)
      check()
    }),
    stop: () => {
      controller.abort('SIGTERM')
      return finished
    },
  }
}

export interface Serving {
  readonly httpsUrl: string
  readonly httpPort: number
  /** What serve wrote so far (its log lines go to the process's stdout, not here). */
  output(): string
  /** Stops it as SIGTERM does (in-flight requests finish) and resolves with its exit code. */
  stop(): Promise<number>
}

/**
 * Starts `waybill serve [args]` in this process, on ports 0 (any free port) and at LOG_LEVEL
 * warn unless `env` says otherwise, and resolves once it listens; a start that fails rejects
 * with what serve wrote.
 */
export async function startServe(env: Env, args: readonly string[] = []): Promise<Serving> {
  const running = startWaybill(['serve', ...args], {
    env: { WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0', LOG_LEVEL: 'warn', ...env },
  })
  // The start's lines are written at once, the metrics line last.
  const [, httpsUrl = ''] = await running.until(/listening on (https:\/\/\S+) [\s\S]*metrics at /, 60_000)
  const [, httpPort = ''] = await running.until(/plain HTTP on port (\d+)/)
  return { httpsUrl, httpPort: Number(httpPort), output: () => running.output(), stop: async () => (await running.stop()).code }
}
