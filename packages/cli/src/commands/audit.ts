import { createPublicKey, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { recordedOperation } from '@waybill/http/operation-status'
import { keyIdOf, parseTreeHead, type SignedTreeHead } from '@waybill/merkle'
import {
  AuditLog, HeadStore, loadOrCreateSigningKey, publicKeyDocument, rebuildAuditLog, verifyAuditLog,
} from '@waybill/projector'
import { defineCommand, UsageError, type Output } from '../command.js'
import { loadConfig, type WaybillConfig } from '../config.js'
import type { OpenedStore } from '../open-store.js'
import { rebuildProgress } from '../progress.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill audit <heads [--after N] | public-key | verify [--head FILE] [--public-key FILE] [--json] | rebuild>

For auditors (docs/audit.md):
  heads [--after N]   every signed tree head of this data dir (of tree_size above N), one JSON
                      line each, ascending: append them to a file kept on another machine
  public-key          the public key that verifies the heads (JSON, as GET /v1/audit/public-key)
  verify              recompute the Merkle tree from the event log, check every kept head's
                      signature and root, every order stream's hash chain, and every image's
                      bytes against the sha256 its event records
    --head FILE       also check a head you kept elsewhere (one head as JSON, or JSON lines:
                      the last is used); this is what catches a rewritten or cut-off history
    --public-key FILE the key the heads must verify with, as you pinned it (PEM, or the JSON
                      of GET /v1/audit/public-key); without it, the key in
                      WAYBILL_AUDIT_KEY_DIR. An auditor's copy of the data dir needs no private key
    --json            the report as one JSON document
  rebuild             for operators: build the audit log again from the event log into a new
                      file beside the live one, check its tree against every kept head (heads
                      signed while it runs too), and only then swap to it; the live projector
                      follows. Refused, with the live audit log kept, when the log holds fewer
                      order events than a head covers or a root disagrees. Never needed in
                      normal operation: the audit log only grows. Its progress and outcome are
                      in <data dir>/operations/audit-rebuild.json, which /metrics reports.

Exit code 0 when all is well, 1 when anything fails (the first leaf that differs is named by
order, revision and account; a refused rebuild), 2 on a usage error.`

export const command = defineCommand({
  name: 'audit',
  help: HELP,
  options: { after: { type: 'string' }, head: { type: 'string' }, 'public-key': { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, env, stdout, stderr }) {
    const [sub, ...extra] = positionals
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`)
    if (sub !== 'heads' && values.after !== undefined) throw new UsageError('--after goes with `heads`')
    if (sub !== 'verify' && (values.head !== undefined || values['public-key'] !== undefined || values.json !== undefined)) {
      throw new UsageError('--head, --public-key and --json go with `verify`')
    }
    if (values.after !== undefined && !/^\d+$/.test(values.after)) throw new UsageError('--after: expected a tree size (a whole number)')
    if (sub !== 'heads' && sub !== 'public-key' && sub !== 'verify' && sub !== 'rebuild') throw new UsageError(sub === undefined ? 'a subcommand is required' : `unknown subcommand "${sub}"`)
    const config = loadConfig(env)
    if (sub === 'public-key') {
      stdout.write(`${JSON.stringify(publicKeyDocument(loadOrCreateSigningKey(config.audit.keyDir, { create: false }).publicKey), null, 2)}\n`)
      return 0
    }
    if (sub === 'heads') {
      const heads = HeadStore.inDataDir(config.dataDir)
      try {
        const after = values.after === undefined ? null : Number(values.after)
        for (const head of heads.all()) if (after === null || head.tree_size > after) stdout.write(`${JSON.stringify(head)}\n`)
      } finally {
        heads.close()
      }
      return 0
    }
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
    let pinned: KeyObject | undefined
    if (values['public-key'] !== undefined) {
      const parsed = readPublicKey(values['public-key'])
      if (typeof parsed === 'string') {
        stderr.write(`waybill audit verify: ${parsed}\n`)
        return 2
      }
      pinned = parsed
    }
    return withStore(env, { create: false, writer: 'inline' }, (opened) => verify(opened, config, kept, pinned, values.json === true, stdout))
  },
})

async function verify(opened: OpenedStore, config: WaybillConfig, kept: SignedTreeHead | undefined, pinned: KeyObject | undefined, json: boolean,
  stdout: Output): Promise<number> {
  const heads = HeadStore.inDataDir(config.dataDir)
  // Read, never made or changed: an audit leaves the data dir as it found it.
  const auditLog = new AuditLog(config.dataDir, { create: false })
  try {
    const publicKey = pinned ?? loadOrCreateSigningKey(config.audit.keyDir, { create: false }).publicKey
    let witness = null
    try {
      auditLog.size()
      witness = auditLog
    } catch {
      // No audit log (yet): the leaf that differs is then named by range only.
    }
    const report = await verifyAuditLog({
      store: opened.store, blobs: opened.blobs, publicKey, heads: heads.all(), witness,
      ...(kept !== undefined ? { keptHead: kept } : {}),
    })
    if (json) {
      stdout.write(`${JSON.stringify(report, null, 2)}\n`)
    } else {
      stdout.write(`log: ${report.leaves} order events, root ${report.root}; ${report.streams} streams, ${report.images} images\n`)
      stdout.write(`heads checked against key ${keyIdOf(publicKey)}${pinned !== undefined ? ' (--public-key)' : ` (${config.audit.keyDir})`}: ${report.headsChecked}${kept !== undefined ? ' (with your kept head)' : ' (no kept head given: a history re-signed with the key is not caught; see --head)'}\n`)
      for (const finding of report.findings) stdout.write(`${finding.kind.toUpperCase()}: ${finding.message}\n`)
      stdout.write(report.ok ? 'audit verify: OK\n' : `audit verify: FAILED — ${report.findings.length} finding(s)\n`)
    }
    return report.ok ? 0 : 1
  } finally {
    auditLog.close()
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

/** A head read from FILE: one JSON head, or JSON lines (the last one). A string says what is wrong. */
function readKeptHead(path: string): SignedTreeHead | string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return `--head ${path}: ${(error as Error).message}`
  }
  const lines = text.trim().split('\n').filter((line) => line.trim() !== '')
  const candidates = [text, lines.at(-1) ?? '']
  for (const candidate of candidates) {
    try {
      const head = parseTreeHead(JSON.parse(candidate))
      if (head !== null) return head
    } catch {
      // Not this form; try the next.
    }
  }
  return `--head ${path}: not a signed tree head (one JSON object, or JSON lines whose last is one)`
}

/**
 * The public key an auditor pinned: a PEM (SPKI), or the JSON document of GET
 * /v1/audit/public-key (its `public_key_pem`). A string says what is wrong.
 */
function readPublicKey(path: string): KeyObject | string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return `--public-key ${path}: ${(error as Error).message}`
  }
  let pem = text
  if (text.trimStart().startsWith('{')) {
    try {
      const document = JSON.parse(text) as { public_key_pem?: unknown }
      pem = typeof document.public_key_pem === 'string' ? document.public_key_pem : ''
    } catch {
      pem = ''
    }
  }
  try {
    const key = createPublicKey(pem)
    return key.asymmetricKeyType === 'ed25519' ? key : `--public-key ${path}: not an Ed25519 key (${String(key.asymmetricKeyType)})`
  } catch {
    return `--public-key ${path}: not a public key (a PEM, or the JSON of GET /v1/audit/public-key)`
  }
}
