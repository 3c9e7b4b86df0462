import type { CliCommand, CommandWorld, Output } from './command.js'
import { WAYBILL_VERSION } from '@waybill/domain'
import { COMMANDS } from './command-table.js'

function usage(): string {
  return [
    'Usage: waybill <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`),
    '',
    'Run `waybill <command> --help` for the options of one command; `waybill --version` for the version.',
    'Configuration comes from the environment (WAYBILL_DATA_DIR, WAYBILL_STORE, …); see README.md.',
  ].join('\n')
}

/** `waybill <args>`: a command to run with the rest of the arguments, or the exit code of a help or usage answer. */
async function find(args: readonly string[], stdout: Output, stderr: Output): Promise<{ command: CliCommand; rest: readonly string[] } | number> {
  const [name, ...rest] = args
  if (name === 'help' && rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0])) return find([rest[0], '--help'], stdout, stderr)
  if (name === '--version' || name === '-V') {
    stdout.write(`waybill ${WAYBILL_VERSION} (Node.js ${process.version})\n`)
    return 0
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    stdout.write(`${usage()}\n`)
    return name === undefined ? 2 : 0
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as keyof typeof COMMANDS] : undefined
  if (entry === undefined) {
    stderr.write(`waybill: unknown command "${name}"\n\n${usage()}\n`)
    return 2
  }
  const { command } = await entry.load()
  if (rest.includes('--help') || rest.includes('-h')) {
    stdout.write(`waybill ${name}: ${entry.summary}\n\n${command.help}\n`)
    return 0
  }
  return { command, rest }
}

export interface DispatchOptions {
  /**
   * How a long-running command (serve, projector) is run: main.ts gives it an AbortSignal that
   * SIGINT/SIGTERM abort. Without this, such a command stops when `world.signal` aborts.
   */
  readonly runLong?: (run: (signal: AbortSignal) => Promise<number>) => Promise<number>
}

/**
 * Runs `waybill <args>` in `world` and resolves to its exit code: the help, a command, or an
 * error that reached here, written to stderr as `waybill: <message>` (exit 1). The process entry
 * (main.ts) and the tests (testing.ts) both call it, so a test runs what an operator runs.
 */
export async function dispatch(args: readonly string[], world: CommandWorld, options: DispatchOptions = {}): Promise<number> {
  const fail = (error: unknown): number => {
    world.stderr.write(`waybill: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
  let found
  try {
    found = await find(args, world.stdout, world.stderr)
  } catch (error) {
    return fail(error)
  }
  if (typeof found === 'number') return found
  const { command, rest } = found
  const run = (signal: AbortSignal): Promise<number> => command.run(rest, { ...world, signal }).catch(fail)
  // Only a long-running command stops on signals; the others keep their default (the process ends at once).
  return command.longRunning && options.runLong !== undefined ? options.runLong(run) : run(world.signal)
}
