import { existsSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { SANDBOX_ACCOUNT } from '@waybill/domain'
import {
  isScope, issueProblem, KeyRing, KeyRingError, replacementKeyPath, SCOPES, type KeyRecord, type Scope,
} from '@waybill/keys'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'

const HELP = `Usage: waybill keys <subcommand> [options]

  create --account <account> --scopes <s1,s2,…> [--test]
      Issues a key and prints it once (only its hash is stored). Scopes: ${SCOPES.join(', ')}
      or "all". Accounts are lower-case letters, digits and _. --test makes a wb_test_ key, for the ${SANDBOX_ACCOUNT} account only.
  list [--json]
      Every key: id, account, scopes, state (active, revoked, rotated), which key it replaces or
      was replaced by. A replacement issued because a key was sent over plain HTTP is written
      to <data dir>/replaced-keys/<key id> (mode 0600); list shows that path.
  rotate <key id>
      Revokes the key and issues a replacement with the same account and scopes; prints it once.
  revoke <key id>
      Revokes the key for good.

Reads the same environment as \`waybill serve\` (WAYBILL_DATA_DIR, WAYBILL_STORE, …).`

class UsageError extends Error {}

export const command: CliCommand = {
  name: 'keys',
  summary: 'create, list, rotate and revoke API keys',
  help: HELP,
  async run(argv) {
    const [sub, ...rest] = argv
    try {
      // The arguments are checked before the store is opened, so a usage error creates nothing.
      const action = parseAction(sub, rest)
      const config = loadConfig()
      const opened = await openStore(config, { create: sub === 'create' })
      try {
        return await action(new KeyRing(opened.store), config.dataDir)
      } finally {
        await opened.close()
      }
    } catch (error) {
      if (error instanceof UsageError) {
        process.stderr.write(`waybill keys: ${error.message}\n\n${HELP}\n`)
        return 2
      }
      if (error instanceof KeyRingError) {
        process.stderr.write(`waybill keys: ${error.message}\n`)
        return 1
      }
      throw error
    }
  },
}

type Action = (keys: KeyRing, dataDir: string) => Promise<number>

function parseAction(sub: string | undefined, args: readonly string[]): Action {
  if (sub === undefined) throw new UsageError('a subcommand is required')
  if (sub === 'create') return parseCreate(args)
  if (sub === 'list') return parseList(args)
  if (sub === 'rotate' || sub === 'revoke') return parseChange(sub, args)
  throw new UsageError(`unknown subcommand "${sub}"`)
}

function parse(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function parseCreate(args: readonly string[]): Action {
  const { values, positionals } = parse(args, {
    account: { type: 'string' }, scopes: { type: 'string' }, test: { type: 'boolean', default: false },
  })
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  const test = values['test'] === true
  const account = typeof values['account'] === 'string' ? values['account'] : (test ? SANDBOX_ACCOUNT : undefined)
  if (account === undefined) throw new UsageError('--account is required')
  if (typeof values['scopes'] !== 'string') throw new UsageError('--scopes is required')
  const scopes = parseScopes(values['scopes'])
  const problem = issueProblem({ account, scopes, test })
  if (problem !== null) throw new UsageError(problem)
  return async (keys) => {
    const issued = await keys.issue({ account, scopes, test })
    process.stdout.write(`${issued.key}\n`)
    process.stderr.write(`key id ${issued.record.keyId}, account ${account}, scopes ${scopes.join(',')}. The key is shown only now.\n`)
    return 0
  }
}

function parseScopes(text: string): Scope[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean)
  if (names.length === 1 && names[0] === 'all') return [...SCOPES]
  const unknown = names.filter((name) => !isScope(name))
  if (unknown.length > 0) throw new UsageError(`unknown scope "${unknown[0] ?? ''}"; scopes: ${SCOPES.join(', ')}, or all`)
  if (names.length === 0) throw new UsageError('--scopes needs at least one scope')
  return names as Scope[]
}

function parseList(args: readonly string[]): Action {
  const { values, positionals } = parse(args, { json: { type: 'boolean', default: false } })
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  return async (keys, dataDir) => {
    const records = await keys.list()
    const rows = records.map((record) => view(record, dataDir))
    if (values['json'] === true) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      return 0
    }
    if (rows.length === 0) {
      process.stdout.write('no keys\n')
      return 0
    }
    for (const row of rows) {
      const notes = [
        row.replaces !== null ? `replaces ${row.replaces}` : '',
        row.replaced_by !== null ? `replaced by ${row.replaced_by}` : '',
        row.reason !== null ? `reason ${row.reason}` : '',
        row.secret_file !== null ? `secret in ${row.secret_file}` : '',
      ].filter(Boolean).join('; ')
      process.stdout.write(`${row.key_id}  ${row.state.padEnd(7)}  ${row.test ? 'test' : 'live'}  ${row.account}  ${row.scopes.join(',')}${notes ? `  (${notes})` : ''}\n`)
    }
    return 0
  }
}

function view(record: KeyRecord, dataDir: string) {
  const file = replacementKeyPath(dataDir, record.keyId)
  return {
    key_id: record.keyId, account: record.account, scopes: record.scopes, state: record.state, test: record.test,
    issued_at: record.issuedAt, revoked_at: record.revokedAt, reason: record.reason,
    replaces: record.replaces, replaced_by: record.replacedBy,
    secret_file: record.state === 'active' && existsSync(file) ? file : null,
  }
}

function parseChange(sub: 'rotate' | 'revoke', args: readonly string[]): Action {
  const { positionals } = parse(args, {})
  const [keyId, extra] = positionals
  if (keyId === undefined) throw new UsageError(`${sub} needs a key id (see \`waybill keys list\`)`)
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`)
  if (sub === 'revoke') {
    return async (keys) => {
      await keys.revoke(keyId, 'revoked by operator')
      process.stderr.write(`key ${keyId} revoked\n`)
      return 0
    }
  }
  return async (keys) => {
    const replacement = await keys.rotate(keyId, 'rotated by operator')
    process.stdout.write(`${replacement.key}\n`)
    process.stderr.write(`key ${keyId} rotated; replacement ${replacement.record.keyId} (shown only now)\n`)
    return 0
  }
}
