import { once } from 'node:events'
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** Where a command writes: `process.stdout`/`stderr` in the process, a string sink in a test. */
export interface Output {
  write(text: string): unknown
  /** True on a terminal (progress is then a bar redrawn in place). */
  readonly isTTY?: boolean
}

/** The variables a command reads its configuration from (`loadConfig(env)`). */
export type Env = Readonly<Record<string, string | undefined>>

/** Everything a command may touch of the world: nothing is read from `process`. */
export interface CommandWorld {
  readonly env: Env
  readonly stdout: Output
  readonly stderr: Output
  /**
   * Aborted when a long-running command (serve, projector) is to stop: by SIGINT/SIGTERM in the
   * process (main.ts, whose reason is the signal's name), by the caller in a test.
   */
  readonly signal: AbortSignal
}

type Options = NonNullable<ParseArgsConfig['options']>
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>

/** What `run` is given: the world, the arguments after the command's name, and those arguments parsed. */
interface CommandContext<O extends Options = Options> extends CommandWorld {
  readonly args: readonly string[]
  readonly values: Parsed<O>['values']
  readonly positionals: readonly string[]
}

/** One `waybill <name>` command, as `defineCommand` makes it. `run` resolves to the exit code. */
export interface CliCommand {
  readonly name: string
  /** Full text for `waybill <name> --help`. */
  readonly help: string
  /** Runs until `world.signal` aborts (serve, projector): the process stops it on SIGINT/SIGTERM. */
  readonly longRunning: boolean
  run(args: readonly string[], world: CommandWorld): Promise<number>
}

/** The operator typed something the command cannot take: exit 2, before anything is opened. */
export class UsageError extends Error {}

export interface CommandSpec<O extends Options> {
  readonly name: string
  readonly help: string
  /** The options `node:util` `parseArgs` parses (strictly: an unknown one is a usage error). */
  readonly options?: O
  /** Whether positional arguments are taken (default: none). */
  readonly positionals?: boolean
  /** The arguments are left unparsed, for `run` to parse (`keys`, whose options depend on the subcommand). */
  readonly raw?: boolean
  readonly longRunning?: boolean
  /**
   * How a usage error is told: the message and the whole help (default), or one line that
   * points at --help (`keys`, whose help is long).
   */
  readonly usage?: 'help' | 'line'
  run(context: CommandContext<O>): Promise<number>
}

/**
 * A command from its spec: its arguments are parsed by `options`, and a usage error (a parse
 * failure, or a `UsageError` thrown by `run`) is written to stderr as `waybill <name>: …` with
 * exit code 2. Anything else `run` throws reaches the dispatcher (`waybill: <message>`, exit 1).
 */
export function defineCommand<const O extends Options = Options>(spec: CommandSpec<O>): CliCommand {
  const usage = (world: CommandWorld, message: string): number => {
    world.stderr.write(spec.usage === 'line'
      ? `waybill ${spec.name}: ${message} (see waybill ${spec.name} --help)\n`
      : `waybill ${spec.name}: ${message}\n\n${spec.help}\n`)
    return 2
  }
  return {
    name: spec.name,
    help: spec.help,
    longRunning: spec.longRunning ?? false,
    async run(args, world) {
      let parsed: Parsed<O> = { values: {}, positionals: [] } as unknown as Parsed<O>
      try {
        if (spec.raw !== true) parsed = parseArgs({ args: [...args], options: spec.options ?? ({} as O), allowPositionals: true, strict: true })
        if (spec.positionals !== true && parsed.positionals.length > 0) throw new UsageError(`unexpected argument "${parsed.positionals[0] ?? ''}"`)
      } catch (error) {
        return usage(world, (error as Error).message)
      }
      try {
        return await spec.run({ ...world, args, values: parsed.values, positionals: parsed.positionals })
      } catch (error) {
        if (error instanceof UsageError) return usage(world, error.message)
        throw error
      }
    },
  }
}

/** Resolves once `signal` aborts (at once if it has). */
export async function aborted(signal: AbortSignal): Promise<void> {
  if (!signal.aborted) await once(signal, 'abort')
}
