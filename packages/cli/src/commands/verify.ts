import { ReadModel, verifyOrders } from '@waybill/projector'
import { defineCommand } from '../command.js'
import { withStore } from '../with-store.js'
import { progressReporter } from '../progress.js'

const HELP = `Usage: waybill verify [--json]

Walks every order stream: checks its hash chain, and checks that the orders read model equals a
fresh fold of the log (up to the read model's checkpoint; later events are the projector's lag,
not an error). On the embedded store it also checks that the global log has no gap (positions
are dense, so a missing one is a deleted event). Prints a summary. Exit code 0 only when the log
is whole, every chain holds and every row matches; 1 otherwise; 2 on a usage error.

  --json   one JSON document instead of text`

export const command = defineCommand({
  name: 'verify',
  help: HELP,
  options: { json: { type: 'boolean' } },
  run: ({ values, env, stdout, stderr }) => withStore(env, { create: false, writer: 'inline' }, async (opened, config) => {
    const json = values.json === true
    // An audit changes nothing: an older read model is reported, not migrated.
    const readModel = new ReadModel(config.dataDir, { migrate: false })
    try {
      const started = performance.now()
      const progress = progressReporter(stderr, 'streams')
      const report = await verifyOrders({
        store: opened.store,
        readModel,
        keys: opened.keys,
        onProgress: (done, total) => progress.update({ done, total, elapsedMs: performance.now() - started }),
      })
      if (report.streams > 0) progress.finish({ done: report.streams, total: report.streams, elapsedMs: performance.now() - started })
      const gaps = opened.store.gaps === undefined ? null : await opened.store.gaps()
      const ok = report.ok && (gaps === null || gaps.missing === 0)
      if (json) {
        const log = gaps === null ? null : { missing_positions: gaps.missing, gap_starts: gaps.firstMissing.map(String) }
        stdout.write(`${JSON.stringify({ ...report, log, ok }, null, 2)}\n`)
        return ok ? 0 : 1
      }
      const lines = [
        `streams: ${report.streams}, events: ${report.events}, read model checkpoint: ${report.checkpoint ?? 'none'} (${readModel.path})`,
        ...(gaps !== null && gaps.missing > 0
          ? [`GAP IN THE LOG: ${gaps.missing} position(s) hold no event (deleted); gaps start at ${gaps.firstMissing.join(', ')}`]
          : []),
        ...report.brokenChains.map((b) => `BROKEN CHAIN ${b.stream}: breaks at revision ${b.revision}: ${b.reason}`),
        ...report.mismatches.map((m) => `MISMATCH ${m.account}/${m.orderId}: ${m.fields.join(', ')}` +
          (m.fields[0] === 'row' ? (m.actual === null ? ' (missing from the read model)' : ' (in the read model, not in the log)') : '')),
        ok
          ? `verify: OK — ${gaps === null ? '' : 'the log has no gap, '}every hash chain holds and the read model matches the log`
          : `verify: FAILED — ${[
            gaps !== null && gaps.missing > 0 ? `${gaps.missing} missing position(s)` : '',
            report.brokenChains.length > 0 ? `${report.brokenChains.length} broken chain(s)` : '',
            report.mismatches.length > 0 ? `${report.mismatches.length} read-model mismatch(es)` : '',
          ].filter(Boolean).join(', ')}`,
      ]
      stdout.write(`${lines.join('\n')}\n`)
      return ok ? 0 : 1
    } finally {
      readModel.close()
    }
  }),
})
