import { parseArgs } from 'node:util'
import { ReadModel, verifyOrders } from '@waybill/projector'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { progressReporter } from '../progress.js'

const HELP = `Usage: waybill verify [--json]

Walks every order stream: checks its hash chain, and checks that the orders read model equals a
fresh fold of the log (up to the read model's checkpoint; later events are the projector's lag,
not an error). Prints a summary. Exit code 0 only when every chain holds and every row matches.`

export const command: CliCommand = {
  name: 'verify',
  summary: 'check every hash chain and that the read model matches the log',
  help: HELP,
  async run(argv) {
    let json = false
    try {
      json = parseArgs({ args: [...argv], options: { json: { type: 'boolean' } } }).values.json === true
    } catch (error) {
      process.stderr.write(`waybill verify: ${(error as Error).message}\n\n${HELP}\n`)
      return 2
    }
    const config = loadConfig()
    const opened = await openStore(config)
    const readModel = new ReadModel(config.dataDir)
    try {
      const started = performance.now()
      const progress = progressReporter(process.stderr, 'streams')
      const report = await verifyOrders({
        store: opened.store,
        readModel,
        onProgress: (done, total) => progress.update({ done, total, elapsedMs: performance.now() - started }),
      })
      if (report.streams > 0) progress.finish({ done: report.streams, total: report.streams, elapsedMs: performance.now() - started })
      if (json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
        return report.ok ? 0 : 1
      }
      const lines = [
        `streams: ${report.streams}, events: ${report.events}, read model checkpoint: ${report.checkpoint ?? 'none'} (${readModel.path})`,
        ...report.brokenChains.map((b) => `BROKEN CHAIN ${b.stream}: breaks at revision ${b.revision}: ${b.reason}`),
        ...report.mismatches.map((m) => `MISMATCH ${m.account}/${m.orderId}: ${m.fields.join(', ')}` +
          (m.fields[0] === 'row' ? (m.actual === null ? ' (missing from the read model)' : ' (in the read model, not in the log)') : '')),
        report.ok
          ? 'verify: OK — every hash chain holds and the read model matches the log'
          : `verify: FAILED — ${report.brokenChains.length} broken chain(s), ${report.mismatches.length} read-model mismatch(es)`,
      ]
      process.stdout.write(`${lines.join('\n')}\n`)
      return report.ok ? 0 : 1
    } finally {
      readModel.close()
      await opened.close()
    }
  },
}
