#!/usr/bin/env node
import type { CliCommand } from './command.js'

/**
 * Each command is loaded only when asked for, so a command pays only for what it uses:
 * `waybill keys` and `waybill replay` never load Fastify or the projector
 * (test/no-fastify.e2e.test.ts proves it).
 */
const COMMANDS = {
  serve: () => import('./commands/serve.js'),
  keys: () => import('./commands/keys.js'),
  replay: () => import('./commands/replay.js'),
  rebuild: () => import('./commands/rebuild.js'),
  verify: () => import('./commands/verify.js'),
  projector: () => import('./commands/projector.js'),
  store: () => import('./commands/store.js'),
  audit: () => import('./commands/audit.js'),
  openapi: () => import('./commands/openapi.js'),
} satisfies Record<string, () => Promise<{ command: CliCommand }>>

/** One line each for `waybill --help`; kept here so the help does not load every command. */
const SUMMARIES: Record<keyof typeof COMMANDS, string> = {
  serve: 'run the HTTPS ingress, the read API and (unless --no-projector) the projector',
  keys: 'create, list, update, rotate and revoke API keys',
  replay: "print an order's events, its state after each, and check its hash chain",
  rebuild: 'rebuild the orders read model into a new file and swap to it (not the audit log)',
  verify: 'check the log, every hash chain, and that the read model matches the log',
  projector: 'run the projector (orders read model, audit log) as its own process',
  store: 'check that the configured event store keeps every promise Waybill relies on (store check)',
  audit: 'export signed tree heads and the public key; verify the log, images and chains against them; rebuild the audit log',
  openapi: 'print the OpenAPI document the server serves (the typed client is generated from it)',
}

function usage(): string {
  return [
    'Usage: waybill <command> [options]',
    '',
    'Commands:',
    ...Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(10)} ${summary}`),
    '',
    'Run `waybill <command> --help` for the options of one command.',
    'Configuration comes from the environment (WAYBILL_DATA_DIR, WAYBILL_STORE, …); see README.md.',
  ].join('\n')
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'help' && rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0])) return main([rest[0], '--help'])
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`)
    return name === undefined ? 2 : 0
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as keyof typeof COMMANDS] : undefined
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

// A reader that goes away (`waybill keys list | head`, `waybill projector | head`) is not an
// error of ours: stop quietly, as Unix tools do, instead of dying on an uncaught EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

// Everything Waybill creates (the event log, the read model, images, keys, certificates) is for
// the service's user only: files 0600, directories 0700, whatever the shell's umask says.
process.umask(0o077)

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code },
  (error: unknown) => {
    process.stderr.write(`waybill: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  },
)
