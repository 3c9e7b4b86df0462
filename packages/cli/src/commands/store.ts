import { runPreflight, scratchCategory, type PreflightResult } from '@waybill/event-store'
import { defineCommand, UsageError } from '../command.js'
import { openStore } from '../open-store.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill store check [--json]

Runs the event store's contract against the configured store (WAYBILL_STORE,
EVENTSTORE_CONNECTION_STRING or WAYBILL_DATA_DIR), on a scratch category of its own
(storecheck<random>), and prints what holds: the expected-revision cases, 50 racing creates,
idempotent re-append (sequential and racing), read-after-write from the leader, read-all order
and positions, catch-up and resume, an image-bearing event, and a clean close. It writes a few
hundred small events to streams no order or key uses, and never deletes anything. Run it first
against every new deployment: this is how an EventStoreDB cluster is verified for Waybill.
Exit code 0 only when every check holds; 1 otherwise; 2 on a usage error.

  --json   one JSON document instead of the table`

export const command = defineCommand({
  name: 'store',
  help: HELP,
  options: { json: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, env, stdout }) {
    if (positionals.length !== 1 || positionals[0] !== 'check') throw new UsageError('expected the subcommand "check"')
    const json = values.json === true
    return withStore(env, {}, async (opened, config) => {
      // Each check that opens a store of its own closes it as an EventStore: its subject key store
      // (never used by the checks) is closed with it, so no key writer thread outlives the check.
      const open = async () => {
        const another = await openStore(config)
        const close = another.store.close.bind(another.store)
        return Object.assign(another.store, { close: async () => { await close(); await another.keys.close() } })
      }
      const info = await opened.store.serverInfo?.()
      const category = scratchCategory()
      if (!json) {
        stdout.write(`store: ${info === undefined ? config.store : `${info.kind}, ${info.version}, ${info.location}`}\n`)
        stdout.write(`scratch category: ${category}\n\n`)
      }
      const results = await runPreflight(opened.store, {
        open, category,
        onResult: (result) => { if (!json) stdout.write(`${row(result)}\n`) },
      })
      const failed = results.filter((result) => !result.ok).length
      if (json) {
        stdout.write(`${JSON.stringify({ store: info ?? { kind: config.store }, category, ok: failed === 0, checks: results }, null, 2)}\n`)
      } else {
        stdout.write(`\n${failed === 0 ? `all ${results.length} checks hold` : `${failed} of ${results.length} checks FAILED`}\n`)
      }
      return failed === 0 ? 0 : 1
    })
  },
})

/** One line of the table: verdict, name, time, and why it failed. */
function row(result: PreflightResult): string {
  const verdict = result.ok ? 'ok  ' : 'FAIL'
  const time = `${result.ms} ms`.padStart(9)
  return `${verdict}  ${result.name.padEnd(80)} ${time}${result.ok ? '' : `\n      ${result.detail}`}`
}
