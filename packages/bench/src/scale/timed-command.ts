import { spawn } from 'node:child_process'

/** What one run of a command took: wall time, the CPU of the command and its children, and its exit code. */
export interface TimedRun {
  readonly wallSeconds: number
  readonly cpuSeconds: number
  readonly code: number
}

/**
 * Runs `node <script> <args>` with `env` on top of this process's environment, its output
 * dropped, and times it. The CPU (user + system, every thread) is what the shell's `times`
 * reports for its children once the command has ended: /proc cannot be read after a process
 * has gone, and its last reading before that would miss its end.
 */
export function timeCommand(script: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<TimedRun> {
  const quoted = [process.execPath, script, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ')
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const shell = spawn('bash', ['-c', `${quoted} >/dev/null 2>&1; code=$?; times; exit $code`], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    shell.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    shell.on('error', reject)
    shell.on('close', (code) => {
      resolve({ wallSeconds: (performance.now() - started) / 1000, cpuSeconds: childrenSeconds(out), code: code ?? -1 })
    })
  })
}

/**
 * The children's user + system seconds from the output of bash's `times`: two lines, the
 * shell's own times and then its children's, each `<user> <system>` as `1m2.345s`.
 */
function childrenSeconds(times: string): number {
  const line = times.trim().split('\n')[1] ?? ''
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, minutes, secs]) => sum + Number(minutes) * 60 + Number(secs), 0)
}
