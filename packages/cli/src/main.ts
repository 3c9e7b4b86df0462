#!/usr/bin/env node
import type { CliCommand } from './command.js'

/**
 * Each command is loaded only when asked for, so `waybill keys list` does not pay for
 * Fastify and the projector.
 */
const COMMANDS: Record<string, () => Promise<{ command: CliCommand }>> = {
  serve: () => import('./commands/serve.js'),
  keys: () => import('./commands/keys.js'),
  replay: () => import('./commands/replay.js'),
  rebuild: () => import('./commands/rebuild.js'),
  verify: () => import('./commands/verify.js'),
  projector: () => import('./commands/projector.js'),
  bench: () => import('./commands/bench.js'),
}

function usage(): string {
  return [
    'Usage: waybill <command> [options]',
    '',
    'Commands:',
    ...Object.keys(COMMANDS).map((name) => `  ${name}`),
    '',
    'Run `waybill <command> --help` for the options of one command.',
    'Configuration comes from the environment (WAYBILL_DATA_DIR, WAYBILL_STORE, …); see README.md.',
  ].join('\n')
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`)
    return name === undefined ? 2 : 0
  }
  const load = COMMANDS[name]
  if (load === undefined) {
    process.stderr.write(`waybill: unknown command "${name}"\n\n${usage()}\n`)
    return 2
  }
  const { command } = await load()
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`)
    return 0
  }
  return command.run(rest)
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code },
  (error: unknown) => {
    process.stderr.write(`waybill: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  },
)
