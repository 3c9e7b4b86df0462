import { resolve } from 'node:path'
import { restoreBackup, type RestoreCut } from '../backup/restore-backup.js'
import { defineCommand, UsageError } from '../command.js'
import { loadConfig } from '../config.js'

const HELP = `Usage: waybill restore DIR [--to-time TIME | --to-position N] [--json]

Restores the backup in DIR (made by \`waybill backup\`) into WAYBILL_DATA_DIR, which must be empty
or absent: the log as it was recorded (ids, revisions, hashes, positions, times), the images it
names, and the heads file with the public keys; then rebuilds the orders read model and the audit
log, and verifies itself: the manifests and files against their sha256, every hash chain, no gap
in the log, the read model against the log, the rebuilt tree against every signed head with the
key it names, every image's bytes. Exit code 1, naming each failure, when any of it does not hold.

  --to-time TIME     only the events the store wrote at or before TIME (RFC 3339 with a zone,
                     e.g. 2026-11-27T10:00:00Z): the restore stops at the first event written after
                     it. Heads and key changes past the restored log are set aside (kept in DIR)
  --to-position N    only the events up to log position N
  --json             the report as one JSON document

With WAYBILL_STORE=eventstoredb, restore the cluster first by EventStoreDB's own procedure: the
backup holds no events, and this restores the heads (less those past the cluster's log), the
images the cluster's log names, and both projections, rebuilt from the cluster and verified;
--to-time and --to-position are refused there.

The private signing key is not in a backup: \`waybill serve\` on the restored data dir signs only
with the key its heads name, from WAYBILL_AUDIT_KEY_DIR; restore that directory, or run
\`waybill audit rotate-key --old-key-lost\` (docs/audit.md, "Key lifecycle").`

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/

export const command = defineCommand({
  name: 'restore',
  help: HELP,
  options: { 'to-time': { type: 'string' }, 'to-position': { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, env, stdout }) {
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new UsageError('the backup directory is required')
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`)
    const toTime = values['to-time']
    const toPosition = values['to-position']
    if (toTime !== undefined && toPosition !== undefined) throw new UsageError('--to-time or --to-position, not both')
    if (toTime !== undefined && (!RFC3339.test(toTime) || Number.isNaN(Date.parse(toTime)))) throw new UsageError(`--to-time: expected an RFC 3339 time with a zone, got "${toTime}"`)
    if (toPosition !== undefined && !/^[1-9]\d{0,18}$/.test(toPosition)) throw new UsageError(`--to-position: expected a log position (a whole number from 1), got "${toPosition}"`)
    const cut: RestoreCut = toTime !== undefined ? { time: new Date(toTime) } : toPosition !== undefined ? { position: BigInt(toPosition) } : null
    const config = loadConfig(env)
    const report = await restoreBackup(resolve(dir), config, cut)
    if (values.json === true) {
      stdout.write(`${JSON.stringify(report, null, 2)}\n`)
      return report.ok ? 0 : 1
    }
    const { restored, backup, set_aside: aside } = report
    const lines = [
      backup.store === 'sqlite'
        ? `restored ${config.dataDir} from backup ${backup.sequence} (${backup.started_at}) in ${resolve(dir)}: the log up to position ${restored.position} ` +
          `(${restored.events} of the backup's ${backup.events} events, ${restored.order_events} order events, last written ${restored.last_written_at ?? 'never'}), ${restored.images} image(s)`
        : `restored ${config.dataDir} from backup ${backup.sequence} (${backup.started_at}) in ${resolve(dir)} around the cluster's log: ${restored.events} events ` +
          `(the backup was taken at ${backup.events}), ${restored.order_events} order events, last written ${restored.last_written_at ?? 'never'}; ${restored.images} image(s)`,
      `  heads kept: ${report.heads.kept}; current key ${report.heads.current_key ?? 'none'}` +
        (aside.heads > 0 || aside.keys.length > 0
          ? `; set aside past the restored log (kept in the backup): ${aside.heads} head(s)${aside.first === null ? '' : ` from tree size ${aside.first.tree_size}`}` +
            (aside.keys.length > 0 ? `, key change(s) to ${aside.keys.join(', ')}` : '')
          : ''),
      '  rebuilt the orders read model and the audit log',
      ...report.failures.map((failure) => `FAILED: ${failure}`),
      report.ok
        ? `restore: OK — every hash chain holds, ${backup.store === 'sqlite' ? 'the log has no gap, ' : ''}the read model matches the log, the tree agrees with every kept head and its key, every image is whole. ` +
          `\`waybill serve\` signs only with key ${report.heads.current_key ?? '(none yet)'} from WAYBILL_AUDIT_KEY_DIR: restore that directory, or run \`waybill audit rotate-key --old-key-lost\``
        : `restore: FAILED — ${report.failures.length} problem(s); the data directory is left as restored, for inspection: do not serve it`,
    ]
    stdout.write(`${lines.join('\n')}\n`)
    return report.ok ? 0 : 1
  },
})
