import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ALL_ACCOUNTS, SANDBOX_ACCOUNT } from '@waybill/domain'
import {
  AUDIT_SCOPE, issueProblem, KeyRing, KeyRingError, LABEL_MAX_LENGTH, SCOPES, type KeyRecord, type KeyUpdate,
} from '@waybill/keys'
import { defineCommand, UsageError, type Output } from '../command.js'
import {
  parseExpiry, parseGrace, parseKeyReference, parseLabel, parseScopes, type KeyReference,
} from '../key-options.js'
import { keyRow, keyTable } from '../key-table.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill keys <subcommand> [options]

  create --account <account> --scopes <s1,s2,…> [--label <text>] [--expires <when>] [--test]
      Issues a key and prints it once (only its hash is stored). Scopes: ${SCOPES.join(', ')}
      or "all" (those five). Accounts are lower-case letters, digits and _. --test makes a wb_test_
      key, for the ${SANDBOX_ACCOUNT} account only. --label is a note of at most ${LABEL_MAX_LENGTH} characters.
      An auditor key, which reads every account and never writes:
        --account '${ALL_ACCOUNTS}' --scopes ${AUDIT_SCOPE}
  list [--json]
      Every key under column headers: id, state (active, expired, revoked, rotated), live/test,
      account, scopes, label, expiry, last use (recorded at most once a minute), and notes: the
      end of a rotation's grace, which key it replaces or was replaced by, why it was revoked. A
      replacement issued because a key was sent over plain HTTP is written to
      <data dir>/replaced-keys/<key id> (mode 0600); list shows that path.
  update <key> [--scopes <s1,s2,…>] [--label <text>] [--expires <when>]
      Changes an active key: its scopes, its label (--label '' removes it), its expiry
      (--expires never removes it; an expired key is renewed this way).
  rotate <key> [--grace <duration>] [--expires <when>]
      Revokes the key and issues a replacement with the same account, scopes and label; prints it
      once. With --grace (at most 30d) the old key keeps working that long, so its holder can
      switch over; without it, the old key stops at once. The replacement keeps the old key's
      expiry unless --expires says otherwise.
  revoke <key>
      Revokes the key for good, at once; a key in its rotation's grace stops now.

<key> is a key id (see list) or the whole key. <when> is never, a duration from now (90d), a day
(2026-01-31, UTC) or a UTC time (2026-01-31T12:00:00Z). <duration> is a number and s, m, h or d.

Reads the same environment as \`waybill serve\` (WAYBILL_DATA_DIR, WAYBILL_STORE, …).`

export const command = defineCommand({
  name: 'keys',
  help: HELP,
  raw: true,
  // One line: what was wrong and where the usage is, not the whole help under it.
  usage: 'line',
  async run({ args, env, stdout, stderr }) {
    const [sub, ...rest] = args
    // The arguments are checked before the store is opened, so a usage error creates nothing.
    const action = parseAction(sub, rest)
    try {
      return await withStore(env, { create: sub === 'create', writer: 'inline' },
        (opened, config) => action(new KeyRing(opened.store), { dataDir: config.dataDir, stdout, stderr }))
    } catch (error) {
      if (!(error instanceof KeyRingError)) throw error
      stderr.write(`waybill keys: ${error.message}\n`)
      return 1
    }
  },
})

/** Where an action works and writes. */
interface ActionWorld {
  readonly dataDir: string
  readonly stdout: Output
  readonly stderr: Output
}

type Action = (keys: KeyRing, world: ActionWorld) => Promise<number>

function parseAction(sub: string | undefined, args: readonly string[]): Action {
  if (sub === undefined) throw new UsageError('a subcommand is required')
  if (sub === 'create') return parseCreate(args)
  if (sub === 'list') return parseList(args)
  if (sub === 'update') return parseUpdate(args)
  if (sub === 'rotate') return parseRotate(args)
  if (sub === 'revoke') return parseRevoke(args)
  throw new UsageError(`unknown subcommand "${sub}"`)
}

type Options = NonNullable<ParseArgsConfig['options']>

function parse(args: readonly string[], options: Options): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** Parses `args`, refusing positionals; answers the options given as strings. */
function optionsOf(args: readonly string[], options: Options): Record<string, string | boolean | undefined> {
  const { values, positionals } = parse(args, options)
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  return values as Record<string, string | boolean | undefined>
}

function parseCreate(args: readonly string[]): Action {
  const values = optionsOf(args, {
    account: { type: 'string' }, scopes: { type: 'string' }, test: { type: 'boolean', default: false },
    label: { type: 'string' }, expires: { type: 'string' },
  })
  const test = values['test'] === true
  const account = typeof values['account'] === 'string' ? values['account'] : (test ? SANDBOX_ACCOUNT : undefined)
  if (account === undefined) throw new UsageError('--account is required')
  if (typeof values['scopes'] !== 'string') throw new UsageError('--scopes is required')
  const scopes = parseScopes(values['scopes'])
  const label = typeof values['label'] === 'string' ? parseLabel(values['label']) : null
  const expiresAt = typeof values['expires'] === 'string' ? parseExpiry(values['expires'], new Date()) : null
  const problem = issueProblem({ account, scopes, test, label })
  if (problem !== null) throw new UsageError(problem)
  return async (keys, { stdout, stderr }) => {
    const issued = await keys.issue({ account, scopes, test, label, expiresAt })
    stdout.write(`${issued.key}\n`)
    const expiry = expiresAt === null ? '' : `, expires ${expiresAt}`
    stderr.write(`key id ${issued.record.keyId}, account ${account}, scopes ${scopes.join(',')}${expiry}. The key is shown only now.\n`)
    return 0
  }
}

function parseList(args: readonly string[]): Action {
  const values = optionsOf(args, { json: { type: 'boolean', default: false } })
  return async (keys, { dataDir, stdout }) => {
    const now = new Date()
    const rows = (await keys.list()).map((record) => keyRow(record, dataDir, now))
    if (values['json'] === true) {
      stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      return 0
    }
    stdout.write(rows.length === 0 ? 'no keys\n' : `${keyTable(rows)}\n`)
    return 0
  }
}

/** The one positional of update, rotate and revoke, and their options. */
function keyAndOptions(sub: string, args: readonly string[], options: Options) {
  const { values, positionals } = parse(args, options)
  const [text, extra] = positionals
  if (text === undefined) throw new UsageError(`${sub} needs a key id (as keys list shows it) or the whole key`)
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`)
  return { reference: parseKeyReference(text), values: values as Record<string, string | undefined> }
}

/** The id of the key the operator named; a whole key must be exactly a stored key, whatever its state. */
async function keyIdOf(keys: KeyRing, reference: KeyReference): Promise<string> {
  if ('keyId' in reference) return reference.keyId
  const record = await keys.findByKey(reference.key)
  if (record === null) throw new KeyRingError('key_unknown', 'no stored key is the key given (its id is unknown, or its secret is not that key\'s)')
  return record.keyId
}

function parseUpdate(args: readonly string[]): Action {
  const { reference, values } = keyAndOptions('update', args, { scopes: { type: 'string' }, label: { type: 'string' }, expires: { type: 'string' } })
  const { scopes, label, expires } = values
  if (scopes === undefined && label === undefined && expires === undefined) {
    throw new UsageError('update needs --scopes, --label or --expires')
  }
  const changes: KeyUpdate = {
    ...(scopes !== undefined ? { scopes: parseScopes(scopes) } : {}),
    ...(label !== undefined ? { label: parseLabel(label) } : {}),
    ...(expires !== undefined ? { expiresAt: parseExpiry(expires, new Date()) } : {}),
  }
  return async (keys, { stderr }) => {
    const keyId = await keyIdOf(keys, reference)
    const record = await keys.update(keyId, changes)
    stderr.write(`key ${keyId} updated: ${describe(record)}\n`)
    return 0
  }
}

function describe(record: KeyRecord): string {
  return `scopes ${record.scopes.join(',')}, label ${record.label === null ? 'none' : JSON.stringify(record.label)}, ` +
    `expires ${record.expiresAt ?? 'never'}`
}

function parseRotate(args: readonly string[]): Action {
  const { reference, values } = keyAndOptions('rotate', args, { grace: { type: 'string' }, expires: { type: 'string' } })
  const graceMs = values['grace'] !== undefined ? parseGrace(values['grace']) : 0
  const expires = values['expires']
  const expiresAt = expires !== undefined ? parseExpiry(expires, new Date()) : undefined
  return async (keys, { stdout, stderr }) => {
    const keyId = await keyIdOf(keys, reference)
    const replacement = await keys.rotate(keyId, 'rotated by operator', { graceMs, ...(expiresAt !== undefined ? { expiresAt } : {}) })
    stdout.write(`${replacement.key}\n`)
    const old = graceMs > 0 ? `keeps working until ${(await keys.get(keyId))?.graceUntil ?? ''}` : 'no longer works'
    stderr.write(`key ${keyId} rotated (${old}); replacement ${replacement.record.keyId} (shown only now)\n`)
    return 0
  }
}

function parseRevoke(args: readonly string[]): Action {
  const { reference } = keyAndOptions('revoke', args, {})
  return async (keys, { stderr }) => {
    const keyId = await keyIdOf(keys, reference)
    await revokeNow(keys, keyId)
    stderr.write(`key ${keyId} revoked\n`)
    return 0
  }
}

/** Revokes an active key; a key already revoked but still working in its rotation's grace stops now. */
async function revokeNow(keys: KeyRing, keyId: string): Promise<void> {
  try {
    await keys.revoke(keyId, 'revoked by operator')
  } catch (error) {
    if (!(error instanceof KeyRingError) || (error.code !== 'key_revoked' && error.code !== 'key_rotated')) throw error
    try {
      await keys.endGrace(keyId, 'revoked by operator')
    } catch (graceError) {
      // No grace left: the key was revoked already, and that is what the operator hears.
      if (graceError instanceof KeyRingError && graceError.code === 'no_grace') throw error
      throw graceError
    }
  }
}
