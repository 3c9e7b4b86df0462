import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * The built `waybill`, for the tests where the process is the point (signals, crashes, file modes,
 * import cost); the others run it in-process (src/testing.ts).
 */
export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))

export interface Served {
  readonly child: ChildProcess
  readonly httpsUrl: string
  readonly httpPort: number
  readonly output: () => string
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Starts `waybill serve [args]` and resolves once it has said where it listens (its metrics line is the start's last). */
export function serve(env: Record<string, string>, args: readonly string[] = []): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'serve', ...args], {
      env: { PATH: process.env['PATH'] ?? '', WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0', LOG_LEVEL: 'warn', ...env },
    })
    let out = ''
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      const https = /listening on (https:\/\/\S+) /.exec(out)
      const http = /plain HTTP on port (\d+)/.exec(out)
      if (https?.[1] !== undefined && http?.[1] !== undefined && out.includes('metrics at ')) {
        resolve({
          child, httpsUrl: https[1], httpPort: Number(http[1]), output: () => out,
          stop: async () => { child.kill('SIGTERM'); return exited },
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString() })
    void exited.then((code) => reject(new Error(`waybill serve exited with ${String(code)} before listening:\n${out}`)))
  })
}
