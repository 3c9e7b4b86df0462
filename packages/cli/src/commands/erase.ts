import { ACCOUNT_PATTERN, ACCOUNT_REFUSAL } from '@waybill/domain'
import { dropEarlierReadModels, erasePersonalData, PlainOrderError, startProjector, UnknownSubjectError, type ErasureTarget } from '@waybill/projector'
import { defineCommand, UsageError } from '../command.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill erase --account <account> (--customer <customer> | --order <order_id>) --reason <text> [--requested-by <who>]

For operators answering an erasure request (docs/personal-data.md#erasure), safely while the
service runs. For each order of the customer (or the one order): appends a PersonalDataErased to
the order's stream (who asked, when, why: the erasure is in the signed log), destroys the order's
key in WAYBILL_SUBJECT_KEY_DIR (every sealed copy of its personal fields and images, in the log,
the audit log and every backup, becomes unreadable), deletes its images, then brings the read
model past the erasure (scrubbed in place, its journal emptied) and deletes its earlier
generations. The order remains, its personal fields null; it takes no new event.

An unknown customer or order changes nothing and exits 1; an erasure done before is reported as
such (exit 0). --reason and --requested-by are stored in the log: never a data subject's name.

  --account <account>     the account (tenant) the customer or order belongs to
  --customer <customer>   every order of this customer, as the courier sent it
  --order <order_id>      one order
  --reason <text>         why, e.g. a ticket number
  --requested-by <who>    who asked (default: the USER variable, else "operator")`

export const command = defineCommand({
  name: 'erase',
  help: HELP,
  options: {
    account: { type: 'string' }, customer: { type: 'string' }, order: { type: 'string' }, reason: { type: 'string' }, 'requested-by': { type: 'string' },
  },
  async run({ values, env, stdout, stderr }) {
    const { account, customer, order, reason } = values
    if (account === undefined || !ACCOUNT_PATTERN.test(account)) throw new UsageError(`--account ${ACCOUNT_REFUSAL}`)
    if ((customer === undefined) === (order === undefined)) throw new UsageError('give exactly one of --customer and --order')
    if (reason === undefined || reason.trim() === '') throw new UsageError('--reason is required (it is kept in the log with the erasure)')
    const target: ErasureTarget = customer === undefined ? { order: order ?? '' } : { customer }
    const requestedBy = values['requested-by'] ?? env.USER ?? 'operator'
    return withStore(env, { create: false, writer: 'inline' }, async (opened, config) => {
      let report
      try {
        report = await erasePersonalData({ store: opened.store, keys: opened.keys, blobs: opened.blobs }, { account, target, requestedBy, reason })
      } catch (error) {
        if (!(error instanceof UnknownSubjectError) && !(error instanceof PlainOrderError)) throw error
        stderr.write(`waybill erase: ${error.message}\n`)
        return 1
      }
      if (report.orders.length === 0) stdout.write(`customer's personal data in account ${account} was already erased: nothing left to do\n`)
      for (const erased of report.orders) {
        stdout.write(erased.outcome === 'erased'
          ? `erased order ${erased.orderId} (${erased.images} image${erased.images === 1 ? '' : 's'} deleted)\n`
          : `order ${erased.orderId} was already erased\n`)
      }
      if (report.position !== null) {
        // The read model scrubs the rows when it reads the erasures: brought there now, whether or
        // not a projector runs elsewhere (each batch is applied once, by whichever gets it first).
        const projector = startProjector({ store: opened.store, keys: opened.keys, dataDir: config.dataDir, pollMs: 20 })
        try {
          await projector.waitFor(report.position)
        } finally {
          await projector.stop()
        }
      }
      dropEarlierReadModels(config.dataDir)
      stdout.write('read model scrubbed\n')
      return 0
    })
  },
})
