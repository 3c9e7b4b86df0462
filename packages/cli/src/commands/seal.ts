import { join } from 'node:path'
import { defineCommand, UsageError } from '../command.js'
import { loadConfig } from '../config.js'
import { sealCommand } from '../seal/seal.js'
import { verifySealCommand } from '../seal/verify-seal.js'

const HELP = `Usage: waybill seal --reason <text> [--requested-by <who>] | waybill seal --verify

For operators (docs/personal-data.md#data-written-before-sealing), once, with the service
stopped: brings a data dir written by a Waybill before personal data was sealed (its events of
schema version 1 hold personal fields in plain form, its images are stored plain) under sealing,
so that \`waybill erase\` reaches those orders too.

Refused, changing nothing, while the log is open in another process (a running serve or
projector), or when the data dir does not pass \`waybill verify\` and \`waybill audit verify\`.
Then, on the embedded store:
  1. gives each order its key (recorded with its customer) in WAYBILL_SUBJECT_KEY_DIR;
  2. builds the audit tree of the log as it is, and a consistency proof from every head signed
     so far to it; signs a closing head over that whole old tree;
  3. writes the log again beside the live one, every event at its position, each version-1 event
     sealed as a delivery is sealed today (same event id as a courier's retry would get), every
     image stored sealed; checks that the sealed log hashes back to the old tree's root;
  4. signs the new tree's head and a seal statement (old size and root, new size and root, time,
     reason, who asked), and keeps them with the heads, the old heads set aside with their proofs;
  5. puts the sealed log in place of the old, deletes the images' plain files, rebuilds the read
     model and the audit log, and deletes their earlier files.
A second run says there is nothing to seal; a run after a crash in step 5 finishes it.

  --reason <text>         why (a ticket number): signed into the statement, never a person's name
  --requested-by <who>    who asked (default: the USER variable, else "operator")
  --verify                recompute the root of the tree the seal replaced from the sealed log,
                          opening each sealed event back to its plain form with its order's key
                          (while the keys exist): it shows the sealed log holds exactly what the
                          old one held. Exit 1 when it does not, or cannot be recomputed`

export const command = defineCommand({
  name: 'seal',
  help: HELP,
  options: { reason: { type: 'string' }, 'requested-by': { type: 'string' }, verify: { type: 'boolean', default: false } },
  async run({ values, env, stdout, stderr }) {
    if (values.verify) {
      if (values.reason !== undefined || values['requested-by'] !== undefined) throw new UsageError('--verify takes no --reason or --requested-by')
      return verifySealCommand(loadConfig(env), stdout)
    }
    const reason = values.reason
    if (reason === undefined || reason.trim() === '') throw new UsageError('--reason is required (it is signed into the seal statement)')
    const config = loadConfig(env)
    if (config.store !== 'sqlite') {
      stderr.write('waybill seal: the log is in EventStoreDB, whose events cannot be rewritten in place; seal is for the embedded store (docs/personal-data.md#data-written-before-sealing)\n')
      return 1
    }
    return sealCommand(config, { livePath: join(config.dataDir, 'events.sqlite'), reason, requestedBy: values['requested-by'] ?? env.USER ?? 'operator' }, stdout, stderr)
  },
})
