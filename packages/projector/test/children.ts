import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Starts one of the child scripts beside this file with node (they import the built dist/). */
export function startChild(script: string, args: readonly string[]): ChildProcess {
  const path = fileURLToPath(new URL(script, import.meta.url))
  return spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

export function collect(child: ChildProcess): { text(): string } {
  let text = ''
  child.stdout?.on('data', (chunk: Buffer) => { text += chunk.toString() })
  child.stderr?.on('data', (chunk: Buffer) => { text += chunk.toString() })
  return { text: () => text }
}
