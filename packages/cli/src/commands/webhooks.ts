import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { isRealUtcTime } from '@waybill/domain'
import {
  DeliveryLog, parseAccount, parseEndpointUrl, parseEventNames, UnknownEndpointError, WEBHOOKS_FILE, WebhookAdmin, WebhookInputError,
} from '@waybill/webhooks'
import { defineCommand, UsageError, type Env, type Output } from '../command.js'
import { loadConfig } from '../config.js'
import { parseGrace } from '../key-options.js'
import { attemptTable, endpointTable } from '../webhook-table.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill webhooks <subcommand> [options]

  add <url> [--account <account>] [--events <E1,E2,…>]
      Adds an endpoint and prints its id, then its secret (whsec_…), which is shown this once:
      give it to the receiver, which verifies each request's signature with it. The URL is
      https:, or http: to a loopback address (127.0.0.1, [::1], localhost) for development.
      It gets every order event accepted from now on (of one account with --account; of the
      named wire events with --events, e.g. ORDER_ADD,ORDER_COMPLETE).
  list [--json]
      Every endpoint: its state (enabled, or disabled and why), URL, account and events, its
      backlog (messages not delivered yet) and their oldest, its last success.
  remove <id>
      Forgets the endpoint, its secret, its queue and its delivery log.
  disable <id>
      Stops sending to it; its queue keeps growing, and enable resumes where it stopped.
  enable <id>
      Resumes sending (also after a 410 Gone or a spent retry schedule): each order's first
      waiting message is sent at once, with a fresh retry schedule.
  rotate-secret <id> [--grace <duration>]
      Prints a new secret. With --grace (at most 30d) the old one keeps signing beside it that
      long (each request carries both signatures), so the receiver can switch; without it, the
      old one stops at once.
  deliveries [<id>] [--failed] [--json] [--limit <n>]
      The delivery log, newest attempt first (default 50): time, endpoint, webhook-id, event,
      order, outcome (delivered, failed, gone, timeout, error), status, duration, error.
  replay [<id>] --since <time> [--until <time>]
      Sends again, with the same webhook-ids, the messages of events accepted from --since to
      --until (default now), of one endpoint or of every one, in order per order.

<time> is a UTC time (2026-01-31T12:00:00Z) or a day (2026-01-31, its first instant).
<duration> is a number and s, m, h or d. The running service (serve, or waybill projector)
picks every change up within a second. Reads the same environment as \`waybill serve\`.`

type Options = NonNullable<ParseArgsConfig['options']>
type Values = Record<string, string | boolean | undefined>

function parse(args: readonly string[], options: Options): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
    return { values: values as Values, positionals }
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** The arguments of a subcommand: its options, and at most `most` positionals (`least` required, named `what`). */
function argumentsOf(args: readonly string[], options: Options, what: string, least: number, most: number): { values: Values; positionals: string[] } {
  const parsed = parse(args, options)
  if (parsed.positionals.length < least) throw new UsageError(`${what} is required`)
  if (parsed.positionals.length > most) throw new UsageError(`unexpected argument "${parsed.positionals[most] ?? ''}"`)
  return parsed
}

/** Bad input in the operator's own words: exit 2, naming what is wrong. */
function input<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof WebhookInputError) throw new UsageError(error.message)
    throw error
  }
}

function parseTime(option: string, text: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text
  if (!isRealUtcTime(day)) throw new UsageError(`${option}: "${text}" is not a UTC time (2026-01-31T12:00:00Z) or a day (2026-01-31)`)
  return new Date(day)
}

interface World {
  readonly env: Env
  readonly stdout: Output
  readonly stderr: Output
}

type Action = (world: World, dataDir: string) => Promise<number>

/**
 * The endpoint file's admin, for a subcommand about the endpoints there are: null while the file
 * does not exist (no endpoint was ever added), which is then not made.
 */
function withAdmin(dataDir: string, use: (admin: WebhookAdmin | null) => number): number {
  if (!existsSync(join(dataDir, WEBHOOKS_FILE))) return use(null)
  const admin = WebhookAdmin.open(dataDir)
  try {
    return use(admin)
  } finally {
    admin.close()
  }
}

function withLog<T>(dataDir: string, use: (log: DeliveryLog) => T): T {
  const log = new DeliveryLog(dataDir)
  try {
    return use(log)
  } finally {
    log.close()
  }
}

function parseAction(sub: string | undefined, args: readonly string[]): Action {
  switch (sub) {
    case undefined:
      throw new UsageError('a subcommand is required')
    case 'add': {
      const { values, positionals } = argumentsOf(args, { account: { type: 'string' }, events: { type: 'string' } }, 'the endpoint URL', 1, 1)
      const url = input(() => parseEndpointUrl(positionals[0] ?? ''))
      const account = values['account'] === undefined ? null : input(() => parseAccount(String(values['account'])))
      const events = values['events'] === undefined ? null : input(() => parseEventNames(String(values['events'])))
      return async ({ env, stdout, stderr }) => withStore(env, { writer: 'inline' }, async (opened, config) => {
        const head = await opened.store.headPosition()
        const admin = WebhookAdmin.open(config.dataDir)
        try {
          const { id, secret } = admin.add({ url, account, events, head })
          stdout.write(`${id}\n${secret}\n`)
          stderr.write(`waybill webhooks: added ${id} for ${url.href} (${account === null ? 'every account' : `account ${account}`}, `
            + `${events === null ? 'every event' : String(values['events'])}); the secret above is shown this once\n`)
          return 0
        } finally {
          admin.close()
        }
      })
    }
    case 'list': {
      const { values } = argumentsOf(args, { json: { type: 'boolean', default: false } }, '', 0, 0)
      return async ({ stdout }, dataDir) => withLog(dataDir, (log) => {
        const endpoints = log.endpoints()
        stdout.write(values['json'] === true ? `${JSON.stringify(endpoints, null, 2)}\n` : endpoints.length === 0 ? 'no webhook endpoints\n' : `${endpointTable(endpoints)}\n`)
        return 0
      })
    }
    case 'remove':
    case 'disable':
    case 'enable': {
      const { positionals } = argumentsOf(args, {}, 'the endpoint id', 1, 1)
      const id = positionals[0] ?? ''
      return async ({ stdout }, dataDir) => withAdmin(dataDir, (admin) => {
        if (admin === null) throw new UnknownEndpointError(id)
        if (sub === 'remove') admin.remove(id)
        else if (sub === 'disable') admin.disable(id)
        else admin.enable(id)
        stdout.write(`${id} ${sub === 'remove' ? 'removed' : sub === 'disable' ? 'disabled' : 'enabled'}\n`)
        return 0
      })
    }
    case 'rotate-secret': {
      const { values, positionals } = argumentsOf(args, { grace: { type: 'string' } }, 'the endpoint id', 1, 1)
      const id = positionals[0] ?? ''
      const graceMs = values['grace'] === undefined ? 0 : parseGrace(String(values['grace']))
      return async ({ stdout, stderr }, dataDir) => withAdmin(dataDir, (admin) => {
        if (admin === null) throw new UnknownEndpointError(id)
        stdout.write(`${admin.rotateSecret(id, graceMs)}\n`)
        stderr.write(`waybill webhooks: a new secret for ${id}, shown this once; ${graceMs === 0 ? 'the old one no longer signs'
          : `the old one signs beside it until ${new Date(Date.now() + graceMs).toISOString()}`}\n`)
        return 0
      })
    }
    case 'deliveries': {
      const { values, positionals } = argumentsOf(args, {
        failed: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, limit: { type: 'string' },
      }, '', 0, 1)
      const limit = Number(values['limit'] ?? 50)
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit: expected a whole number from 1 to 10000')
      const id = positionals[0] ?? null
      return async ({ stdout }, dataDir) => withLog(dataDir, (log) => {
        if (id !== null && log.endpoint(id) === null) throw new UnknownEndpointError(id)
        const attempts = log.attempts({ ...(id === null ? {} : { endpointId: id }), failed: values['failed'] === true, limit })
        stdout.write(values['json'] === true ? `${JSON.stringify(attempts, null, 2)}\n` : attempts.length === 0 ? 'no delivery attempts\n' : `${attemptTable(attempts)}\n`)
        return 0
      })
    }
    case 'replay': {
      const { values, positionals } = argumentsOf(args, { since: { type: 'string' }, until: { type: 'string' } }, '', 0, 1)
      if (values['since'] === undefined) throw new UsageError('--since is required')
      const since = parseTime('--since', String(values['since']))
      const until = values['until'] === undefined ? null : parseTime('--until', String(values['until']))
      if (until !== null && until <= since) throw new UsageError('--until must be after --since')
      const id = positionals[0] ?? null
      return async ({ stdout }, dataDir) => withAdmin(dataDir, (admin) => {
        if (admin === null && id !== null) throw new UnknownEndpointError(id)
        const replayed = admin === null ? [] : admin.replay(id, since, until)
        for (const { endpointId, messages } of replayed) stdout.write(`${endpointId}: ${messages} message(s) queued again\n`)
        if (replayed.length === 0) stdout.write('no webhook endpoints\n')
        return 0
      })
    }
    default:
      throw new UsageError(`unknown subcommand "${sub}"`)
  }
}

export const command = defineCommand({
  name: 'webhooks',
  help: HELP,
  raw: true,
  usage: 'line',
  async run({ args, env, stdout, stderr }) {
    const [sub, ...rest] = args
    // The arguments are checked before anything is opened, so a usage error changes nothing.
    const action = parseAction(sub, rest)
    try {
      return await action({ env, stdout, stderr }, loadConfig(env).dataDir)
    } catch (error) {
      if (!(error instanceof UnknownEndpointError)) throw error
      stderr.write(`waybill webhooks: ${error.message}\n`)
      return 1
    }
  },
})
