import { recordedOperation } from '@waybill/http/operation-status'
import { rebuildReadModel } from '@waybill/projector'
import { defineCommand } from '../command.js'
import { rebuildProgress } from '../progress.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill rebuild [--projection orders]

For operators: rebuilds the orders read model from position 0 of the event log into a NEW
file while the current one keeps answering queries, then swaps to it atomically (the pointer
file <data dir>/read-model.current). A running server and projector switch to the new file on
their next query or batch. Safe while clients write: events appended meanwhile are applied by
the live projector after the swap. The audit log is a projection of its own, which this neither
reads nor changes (see \`waybill audit rebuild\`). Shows a progress bar on a terminal, progress
lines otherwise, and prints the final count and rate; its progress and outcome are also in
<data dir>/operations/rebuild.json, which /metrics reports. The previous file is kept until the
next rebuild.

  --projection <name>  the projection to rebuild; "orders" is the only one (default)`

export const command = defineCommand({
  name: 'rebuild',
  help: HELP,
  options: { projection: { type: 'string', default: 'orders' } },
  async run({ values: { projection }, env, stdout, stderr }) {
    if (projection !== 'orders') {
      stderr.write(`waybill rebuild: unknown projection "${projection}" (known: orders)\n`)
      return 2
    }
    // Its progress and outcome are also in <data dir>/operations/rebuild.json, which /metrics reads.
    return withStore(env, { create: false, writer: 'inline' }, async (opened, config) => recordedOperation(config.dataDir, 'rebuild', async (status) => {
      const progress = rebuildProgress(stderr)
      const result = await rebuildReadModel({
        store: opened.store, dataDir: config.dataDir,
        onProgress: (p) => {
          progress.onProgress(p)
          status.progress(Number(p.position), Number(p.head))
        },
      })
      const summary = progress.finish(result.events, result.elapsedMs)
      status.succeeded(summary)
      stdout.write(`rebuilt ${projection}: ${summary}; now serving ${result.path}\n`)
      return 0
    }))
  },
})
