import { existsSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { ACCOUNT_PATTERN, ACCOUNT_REFUSAL } from '@waybill/domain'
import { exportSubject } from '@waybill/projector'
import { defineCommand, UsageError } from '../command.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill export --account <account> --customer <customer> <dir>

For operators answering an access request (docs/personal-data.md#subject-access): writes everything
Waybill holds about one customer of an account into <dir> (new or empty): per order, a JSON file
with the order as it stands and every event with its fields as sent (opened with the order's key),
its images as files, and manifest.json last, naming each file with its sha256. Orders already
erased are not the customer's any more and are not exported. Exits 1 when the account holds
nothing of the customer.`

export const command = defineCommand({
  name: 'export',
  help: HELP,
  positionals: true,
  options: { account: { type: 'string' }, customer: { type: 'string' } },
  async run({ values, positionals, env, stdout, stderr }) {
    const { account, customer } = values
    if (account === undefined || !ACCOUNT_PATTERN.test(account)) throw new UsageError(`--account ${ACCOUNT_REFUSAL}`)
    if (customer === undefined) throw new UsageError('--customer is required')
    if (positionals.length !== 1) throw new UsageError('give one directory to write into')
    const dir = resolve(positionals[0] ?? '')
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${dir} is not empty`)
    return withStore(env, { create: false, writer: 'inline' }, async (opened) => {
      const report = await exportSubject({ store: opened.store, keys: opened.keys, blobs: opened.blobs }, account, customer, dir)
      if (report.orders.length === 0) {
        stderr.write(`waybill export: account ${account} holds no order of customer ${JSON.stringify(customer)} (erased, or never seen)\n`)
        return 1
      }
      stdout.write(`${report.orders.length} order(s), ${report.files.length} file(s) written to ${dir} (manifest.json lists them)\n`)
      return 0
    })
  },
})
