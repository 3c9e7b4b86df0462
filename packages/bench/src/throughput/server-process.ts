import { spawn, type ChildProcess } from 'node:child_process'

export interface ServerProcess {
  readonly child: ChildProcess
  readonly httpsUrl: string
  /** SIGTERM, then the exit code once the process has finished its in-flight work. */
  stop(): Promise<number | null>
}

/**
 * Runs `node <script> <args>` (`waybill serve`, or the bench's ceiling) as a child process with
 * `env` on top of this process's environment, and resolves once it prints where it listens.
 */
export function startServerProcess(script: string, args: readonly string[], env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, script, ...args], {
      env: { ...process.env, WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      const https = /listening on (https:\/\/\S+) /.exec(out)
      if (https?.[1] !== undefined) {
        child.stdout.off('data', onData)
        resolve({ child, httpsUrl: https[1], stop: async () => { child.kill('SIGTERM'); return exited } })
      }
    }
    child.stdout.on('data', onData)
    // Keep draining both pipes so a chatty child never blocks on a full pipe.
    child.stdout.on('data', () => {})
    child.stderr.on('data', (chunk: Buffer) => { if (out.length < 100_000) out += chunk.toString() })
    void exited.then((code) => reject(new Error(`${[script, ...args].join(' ')} exited with ${String(code)} before listening:\n${out}`)))
  })
}
