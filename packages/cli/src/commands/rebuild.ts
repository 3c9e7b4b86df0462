import { HeadStore, rebuildReadModel } from '@waybill/projector'
import { defineCommand } from '../command.js'
import { withStore } from '../with-store.js'
import { progressReporter } from '../progress.js'

const HELP = `Usage: waybill rebuild [--projection orders]

For operators: rebuilds a projection from position 0 of the event log into a NEW read-model
file while the current one keeps answering queries, then swaps to it atomically (the pointer
file <data dir>/read-model.current). A running server and projector switch to the new file on
their next query or batch. The rebuilt audit tree must agree with every signed tree head kept
in <data dir>/audit-heads.sqlite, or the rebuild is refused and the live model stays. Shows a progress bar on a terminal, progress lines otherwise, and
prints the final count and rate. The previous file is kept until the next rebuild.

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
    return withStore(env, { create: false, writer: 'inline' }, async (opened, config) => {
      // The kept signed heads: the rebuilt tree must agree with each, or the live model stays.
      const heads = HeadStore.inDataDir(config.dataDir)
      try {
        const progress = progressReporter(stderr, 'events')
        let last = { done: 0, total: 0, elapsedMs: 0 }
        const result = await rebuildReadModel({
          store: opened.store,
          dataDir: config.dataDir,
          heads,
          onProgress: (p) => {
            // Positions count every event of the log (keys too); the order share is the estimate.
            const total = p.position > 0n ? Math.round((p.events * Number(p.head)) / Number(p.position)) : p.events
            last = { done: p.events, total, elapsedMs: p.elapsedMs }
            progress.update(last)
          },
        })
        progress.finish({ done: result.events, total: result.events, elapsedMs: result.elapsedMs })
        const seconds = result.elapsedMs / 1000
        const rate = seconds > 0 ? Math.round(result.events / seconds) : result.events
        stdout.write(`rebuilt ${projection}: ${result.events} events in ${seconds.toFixed(2)} s (${rate} events/s); now serving ${result.path}\n`)
        return 0
      } finally {
        heads.close()
      }
    })
  },
})
