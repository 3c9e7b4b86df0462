import type { CliCommand } from './command.js'

interface CommandEntry {
  /** The one line of `waybill --help` (and the first of `waybill <name> --help`). */
  readonly summary: string
  readonly load: () => Promise<{ readonly command: CliCommand }>
}

/**
 * Every command: its summary, and its module, loaded only when the command runs, so a command
 * pays only for what it uses (`waybill keys` and `waybill replay` never load Fastify or the
 * projector; test/no-fastify.e2e.test.ts proves it) and `waybill --help` loads none. The summary
 * lives here, not in the module, so that the help needs no module.
 */
export const COMMANDS = {
  serve: {
    summary: 'run the HTTPS API (deliveries, the read API, the console) and, unless --no-projector, the projector',
    load: () => import('./commands/serve.js'),
  },
  keys: { summary: 'create, list, update, rotate and revoke API keys', load: () => import('./commands/keys.js') },
  replay: { summary: "print an order's events, its state after each, and check its hash chain", load: () => import('./commands/replay.js') },
  rebuild: { summary: 'rebuild the orders read model from the log into a new file, then swap to it (not the audit log)', load: () => import('./commands/rebuild.js') },
  compact: {
    summary: 'give back the space of images no event names and of free pages in the read model, while the service runs',
    load: () => import('./commands/compact.js'),
  },
  erase: {
    summary: "erase the personal data of a customer's orders or of one order, keeping the log verifiable",
    load: () => import('./commands/erase.js'),
  },
  seal: {
    summary: 'once, with the service stopped: seal the personal data a previous Waybill stored in plain form, recorded in a signed statement',
    load: () => import('./commands/seal.js'),
  },
  export: { summary: 'write everything held about one customer into a directory, for an access request', load: () => import('./commands/export.js') },
  verify: { summary: 'check the log, every hash chain, and that the read model matches the log', load: () => import('./commands/verify.js') },
  projector: { summary: 'run the projector (orders read model, audit log) and the webhook deliveries as their own process', load: () => import('./commands/projector.js') },
  store: {
    summary: 'check that the configured event store keeps every promise Waybill relies on (store check)',
    load: () => import('./commands/store.js'),
  },
  audit: {
    summary: 'export signed tree heads and the public keys; verify the log, images and chains against them; rebuild the audit log; rotate the signing key',
    load: () => import('./commands/audit.js'),
  },
  backup: {
    summary: 'an online, incremental backup of the log, its images, heads and public keys (never the private key) into a directory',
    load: () => import('./commands/backup.js'),
  },
  restore: {
    summary: 'restore a backup, whole or up to a time or position, into an empty data directory, rebuild and verify it',
    load: () => import('./commands/restore.js'),
  },
  webhooks: {
    summary: "add, list, disable, enable and remove webhook endpoints; rotate their secrets; read the delivery log; replay a range",
    load: () => import('./commands/webhooks.js'),
  },
  openapi: {
    summary: 'print the OpenAPI document the server serves (the typed client is generated from it)',
    load: () => import('./commands/openapi.js'),
  },
} as const satisfies Record<string, CommandEntry>
