import { parseArgs } from 'node:util'
import { rebuildReadModel } from '@waybill/projector'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { rebuildProgress } from '../progress.js'

const HELP = `Usage: waybill rebuild [--projection orders]

For operators: rebuilds the orders read model from position 0 of the event log into a NEW
file while the current one keeps answering queries, then swaps to it atomically (the pointer
file <data dir>/read-model.current). A running server and projector switch to the new file on
their next query or batch. Safe while clients write: events appended meanwhile are applied by
the live projector after the swap. The audit log is a projection of its own, which this neither
reads nor changes (see \`waybill audit rebuild\`). Shows a progress bar on a terminal, progress
lines otherwise, and prints the final count and rate. The previous file is kept until the next
rebuild.

  --projection <name>  the projection to rebuild; "orders" is the only one (default)`

export const command: CliCommand = {
  name: 'rebuild',
  summary: 'rebuild the read model from the log into a new file, then swap atomically',
  help: HELP,
  async run(argv) {
    let projection: string
    try {
      const parsed = parseArgs({ args: [...argv], options: { projection: { type: 'string', default: 'orders' } } })
      projection = parsed.values.projection
    } catch (error) {
      process.stderr.write(`waybill rebuild: ${(error as Error).message}\n\n${HELP}\n`)
      return 2
    }
    if (projection !== 'orders') {
      process.stderr.write(`waybill rebuild: unknown projection "${projection}" (known: orders)\n`)
      return 2
    }
    const config = loadConfig()
    const opened = await openStore(config, { create: false, writer: 'inline' })
    try {
      const progress = rebuildProgress(process.stderr)
      const result = await rebuildReadModel({ store: opened.store, dataDir: config.dataDir, onProgress: progress.onProgress })
      process.stdout.write(`rebuilt ${projection}: ${progress.finish(result.events, result.elapsedMs)}; now serving ${result.path}\n`)
      return 0
    } finally {
      await opened.close()
    }
  },
}
