import { resolve } from 'node:path'
import { recordedOperation } from '@waybill/http/operation-status'
import { takeBackup } from '../backup/take-backup.js'
import { defineCommand, UsageError } from '../command.js'
import { loadConfig } from '../config.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill backup DIR [--json]

An online backup of the data directory (WAYBILL_DATA_DIR) into DIR, while \`waybill serve\` runs:
the signed tree heads and public keys (a copy of audit-heads.sqlite by SQLite's online backup
API), then every event of the log up to its head at that moment (read through the store, never
a file copy), then the images those events name, each checked against its sha256. DIR/backup.json
(the manifest: log position, events, latest head, keys, time, version) is written last.

Backing up into the same DIR again is incremental: only the events after its last backup's
position, and the images it does not hold yet. Never the private signing key (keep
WAYBILL_AUDIT_KEY_DIR apart), nor the read model and the audit log, which \`waybill restore\`
rebuilds. Its progress and outcome are in <data dir>/operations/backup.json, which /metrics
reports (the alert on a backup too old reads it).

With WAYBILL_STORE=eventstoredb the events stay in the cluster, which EventStoreDB's own
procedure backs up: take that backup first, then this one, which holds what Waybill adds (the
heads, the public keys, the images the log names) (docs/operations.md, "Backup and restore").

  --json   print the manifest

Exit code 0 when the backup is complete, 1 when it is not (an image missing from the data
directory, DIR holding a backup of another log), 2 on a usage error.`

export const command = defineCommand({
  name: 'backup',
  help: HELP,
  options: { json: { type: 'boolean' } },
  positionals: true,
  run: async ({ values, positionals, env, stdout }) => {
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new UsageError('the backup directory is required')
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`)
    const { store, dataDir } = loadConfig(env)
    const target = resolve(dir)
    if (target === dataDir || target.startsWith(`${dataDir}/`)) throw new UsageError('DIR must be outside WAYBILL_DATA_DIR')
    return withStore(env, { create: false, writer: 'inline' }, (opened, config) => recordedOperation(config.dataDir, 'backup', async (status) => {
      const started = performance.now()
      const { manifest, added } = await takeBackup({
        store: opened.store, storeKind: store, blobs: opened.blobs, dataDir: config.dataDir, dir: target,
        onProgress: (done, total) => { status.progress(done, total) },
      })
      const head = manifest.heads.latest
      const seconds = ((performance.now() - started) / 1000).toFixed(2)
      status.succeeded(`backup ${manifest.sequence} into ${target}: the log up to position ${manifest.log.position}; ` +
        `added ${added.events} events and ${added.images} image(s) in ${seconds} s`)
      if (values.json === true) {
        stdout.write(`${JSON.stringify(manifest, null, 2)}\n`)
        return 0
      }
      stdout.write([
        `backup ${manifest.sequence} of ${config.dataDir} into ${target}: the ${store === 'sqlite' ? '' : 'cluster\'s '}log up to position ${manifest.log.position} ` +
          `(${manifest.log.events} events, ${manifest.log.order_events} order events, ${manifest.images.total} images)`,
        store === 'sqlite'
          ? `  added ${added.events} events in ${added.segments} segment file(s) and ${added.images} image(s) in ${seconds} s`
          : `  read ${added.events} events (they are EventStoreDB's to back up, not copied here) and added ${added.images} image(s) in ${seconds} s`,
        `  latest signed head: ${head === null ? 'none yet' : `tree size ${head.tree_size}, ${head.timestamp}, key ${head.key_id}`}; ` +
          `${manifest.heads.count} head(s) and ${manifest.keys.length} public key(s) kept; no private key`,
      ].join('\n') + '\n')
      return 0
    }))
  },
})
