import type { KeyObject } from 'node:crypto'
import { recordedOperation } from '@waybill/http/operation-status'
import type { SignedTreeHead } from '@waybill/merkle'
import { auditKeyDocument, HeadStore, rebuildAuditLog } from '@waybill/projector'
import { readKeptHead, readPublicKey } from '../audit/inputs.js'
import { rotateKeyCommand } from '../audit/rotate-key.js'
import { verifyCommand } from '../audit/verify.js'
import { defineCommand, UsageError, type Output } from '../command.js'
import { loadConfig, type WaybillConfig } from '../config.js'
import type { OpenedStore } from '../open-store.js'
import { rebuildProgress } from '../progress.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill audit <heads [--after N] | seals | public-key | keys | verify [--head FILE] [--public-key FILE]… [--json] | rebuild | rotate-key [--old-key-lost]>

For auditors (docs/audit.md):
  heads [--after N]   every signed tree head of this data dir (of tree_size above N), one JSON
                      line each, ascending: append them to a file kept on another machine
  seals               each seal of the log (\`waybill seal\`), one JSON line each: the signed
                      statement, the closing head over the tree it replaced, the new tree's head,
                      and the heads signed before it with their consistency proofs to the
                      closing head (docs/audit.md#sealing)
  public-key          the current public key that verifies the heads (JSON, as
                      GET /v1/audit/public-key), from the heads file: no key directory needed
  keys                every key, current and retired, with its validity and the signed statement
                      by which it took over (JSON, as GET /v1/audit/public-keys)
  verify              recompute the Merkle tree from the event log, check every kept head's
                      signature, by the key it names, and its root, every order stream's hash
                      chain, and every image's bytes against the sha256 its event records
    --head FILE       also check a head you kept elsewhere (one head as JSON, or JSON lines:
                      the last is used); this is what catches a rewritten or cut-off history.
                      A head signed before a seal is checked through the seal
    --public-key FILE a key you pinned (PEM, or the JSON of GET /v1/audit/public-key); may be
                      given more than once. Then only those keys, and the keys they vouched for
                      by a rotation, are believed. Without it, every key of the heads file's
                      key set. An auditor's copy of the data dir needs no private key
    --json            the report as one JSON document

For operators:
  rebuild             build the audit log again from the event log into a new file beside the
                      live one, check its tree against every kept head (heads signed while it
                      runs too), and only then swap to it; the live projector follows. Refused,
                      with the live audit log kept, when the log holds fewer order events than a
                      head covers or a root disagrees. Never needed in normal operation. Its
                      progress and outcome are in <data dir>/operations/audit-rebuild.json,
                      which /metrics reports.
  rotate-key          make a new signing key in WAYBILL_AUDIT_KEY_DIR; the old key endorses it
                      in a signed statement kept with the heads, the latest head is signed again
                      by the new key, and the old private key is deleted. A running projector
                      follows before its next head
    --old-key-lost    the old private key is lost (a restore without the key directory): the
                      statement, signed by the new key alone, records that it was lost, and
                      every head stays verifiable; auditors who pinned the old key pin the new one

Exit code 0 when all is well, 1 when anything fails (the first leaf that differs is named by
order, revision and account; a refused rebuild or rotation), 2 on a usage error.`

const SUBCOMMANDS = ['heads', 'seals', 'public-key', 'keys', 'verify', 'rebuild', 'rotate-key'] as const

export const command = defineCommand({
  name: 'audit',
  help: HELP,
  options: {
    after: { type: 'string' }, head: { type: 'string' }, 'public-key': { type: 'string', multiple: true }, json: { type: 'boolean' },
    'old-key-lost': { type: 'boolean' },
  },
  positionals: true,
  async run({ values, positionals, env, stdout, stderr }) {
    const [sub, ...extra] = positionals
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`)
    if (sub !== 'heads' && values.after !== undefined) throw new UsageError('--after goes with `heads`')
    if (sub !== 'verify' && (values.head !== undefined || values['public-key'] !== undefined || values.json !== undefined)) {
      throw new UsageError('--head, --public-key and --json go with `verify`')
    }
    if (sub !== 'rotate-key' && values['old-key-lost'] !== undefined) throw new UsageError('--old-key-lost goes with `rotate-key`')
    if (values.after !== undefined && !/^\d+$/.test(values.after)) throw new UsageError('--after: expected a tree size (a whole number)')
    if (!SUBCOMMANDS.includes(sub as typeof SUBCOMMANDS[number])) throw new UsageError(sub === undefined ? 'a subcommand is required' : `unknown subcommand "${sub}"`)
    const config = loadConfig(env)
    if (sub === 'public-key' || sub === 'keys' || sub === 'heads' || sub === 'seals') return printHeadsFile(sub, config, values.after, stdout, stderr)
    if (sub === 'rotate-key') return rotateKeyCommand(config, values['old-key-lost'] === true, stdout)
    if (sub === 'rebuild') return withStore(env, { create: false, writer: 'inline' }, (opened) => rebuild(opened, config, stdout, stderr))
    let kept: SignedTreeHead | undefined
    if (values.head !== undefined) {
      const parsed = readKeptHead(values.head)
      if (typeof parsed === 'string') {
        stderr.write(`waybill audit verify: ${parsed}\n`)
        return 2
      }
      kept = parsed
    }
    const pinned: KeyObject[] = []
    for (const path of values['public-key'] ?? []) {
      const parsed = readPublicKey(path)
      if (typeof parsed === 'string') {
        stderr.write(`waybill audit verify: ${parsed}\n`)
        return 2
      }
      pinned.push(parsed)
    }
    return withStore(env, { create: false, writer: 'inline' },
      (opened) => verifyCommand(opened, config, { ...(kept !== undefined ? { kept } : {}), pinned }, values.json === true, stdout))
  },
})

/** `heads`, `seals`, `public-key` and `keys`: what the heads file holds, as the HTTP routes answer it. */
function printHeadsFile(sub: 'heads' | 'seals' | 'public-key' | 'keys', config: WaybillConfig, afterText: string | undefined, stdout: Output, stderr: Output): number {
  const heads = HeadStore.inDataDir(config.dataDir)
  try {
    if (sub === 'heads') {
      for (const head of heads.all()) if (afterText === undefined || head.tree_size > Number(afterText)) stdout.write(`${JSON.stringify(head)}\n`)
      return 0
    }
    if (sub === 'seals') {
      for (const { seal_id: _id, ...seal } of heads.seals()) stdout.write(`${JSON.stringify(seal)}\n`)
      return 0
    }
    if (sub === 'keys') {
      stdout.write(`${JSON.stringify({ keys: heads.keys().map(auditKeyDocument) }, null, 2)}\n`)
      return 0
    }
    const current = heads.currentKey()
    if (current === null) {
      stderr.write(`waybill audit public-key: no tree-head key is recorded in ${heads.path} yet (the projector records it when it first starts)\n`)
      return 1
    }
    const { algorithm, public_key: publicKey, public_key_pem: pem, key_id: keyId } = auditKeyDocument(current)
    stdout.write(`${JSON.stringify({ algorithm, public_key: publicKey, public_key_pem: pem, key_id: keyId }, null, 2)}\n`)
    return 0
  } finally {
    heads.close()
  }
}

/** `waybill audit rebuild`: a new audit log beside the live one, checked against every kept head, then swapped in. */
async function rebuild(opened: OpenedStore, config: WaybillConfig, stdout: Output, stderr: Output): Promise<number> {
  const heads = HeadStore.inDataDir(config.dataDir)
  try {
    // Its progress and outcome are also in <data dir>/operations/audit-rebuild.json, which /metrics reads.
    return await recordedOperation(config.dataDir, 'audit-rebuild', async (status) => {
      const progress = rebuildProgress(stderr)
      const result = await rebuildAuditLog({
        store: opened.store, dataDir: config.dataDir, heads,
        onProgress: (p) => {
          progress.onProgress(p)
          status.progress(Number(p.position), Number(p.head))
        },
      })
      const summary = progress.finish(result.events, result.elapsedMs)
      status.succeeded(summary)
      stdout.write(`rebuilt the audit log: ${summary}; ${result.leaves} leaves agree with ${result.headsChecked} kept head(s); now serving ${result.path}\n`)
      return 0
    })
  } finally {
    heads.close()
  }
}
