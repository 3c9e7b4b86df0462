import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Starts a child script with node (the scripts import the built dist/). A URL, so each test names
 * the script beside it: `new URL('./projector-child.mjs', import.meta.url)`.
 */
export function startChild(script: URL, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, [fileURLToPath(script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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
