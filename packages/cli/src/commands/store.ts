import { parseArgs } from 'node:util'
import { runPreflight, scratchCategory, type PreflightResult } from '@waybill/event-store'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'

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

export const command: CliCommand = {
  name: 'store',
  summary: 'check that the configured event store keeps every promise Waybill relies on',
  help: HELP,
  async run(argv) {
    let json: boolean
    try {
      const { values, positionals } = parseArgs({ args: [...argv], options: { json: { type: 'boolean' } }, allowPositionals: true })
      if (positionals.length !== 1 || positionals[0] !== 'check') throw new Error('expected the subcommand "check"')
      json = values.json === true
    } catch (error) {
      process.stderr.write(`waybill store: ${(error as Error).message}\n\n${HELP}\n`)
      return 2
    }
    const config = loadConfig()
    const open = async () => (await openStore(config)).store
    const opened = await openStore(config)
    try {
      const info = await opened.store.serverInfo?.()
      const category = scratchCategory()
      if (!json) {
        process.stdout.write(`store: ${info === undefined ? config.store : `${info.kind}, ${info.version}, ${info.location}`}\n`)
        process.stdout.write(`scratch category: ${category}\n\n`)
      }
      const results = await runPreflight(opened.store, {
        open, category,
        onResult: (result) => { if (!json) process.stdout.write(`${row(result)}\n`) },
      })
      const failed = results.filter((result) => !result.ok).length
      if (json) {
        process.stdout.write(`${JSON.stringify({ store: info ?? { kind: config.store }, category, ok: failed === 0, checks: results }, null, 2)}\n`)
      } else {
        process.stdout.write(`\n${failed === 0 ? `all ${results.length} checks hold` : `${failed} of ${results.length} checks FAILED`}\n`)
      }
      return failed === 0 ? 0 : 1
    } finally {
      await opened.close()
    }
  },
}

/** One line of the table: verdict, name, time, and why it failed. */
function row(result: PreflightResult): string {
  const verdict = result.ok ? 'ok  ' : 'FAIL'
  const time = `${result.ms} ms`.padStart(9)
  return `${verdict}  ${result.name.padEnd(80)} ${time}${result.ok ? '' : `\n      ${result.detail}`}`
}
