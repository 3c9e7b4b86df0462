import { recordedOperation, type OperationRecorder } from '@waybill/http/operation-status'
import { compact } from '@waybill/projector'
import { defineCommand } from '../command.js'
import { parseDuration } from '../key-options.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill compact [--grace <duration>] [--dry-run]

For operators (docs/operations.md#compact): gives back the disk space nothing needs, safely while
the service runs.

Images no stored event names (a request refused after it stored its images, an order erased) are
set aside in <data dir>/blobs/.orphans once older than the grace, and deleted by a later compact
that finds them still unnamed a grace after; an image an event names after all is put back. The
read model, when at least a tenth of its pages are free, is copied without them into a new
generation that readers and the projector switch to, as after a rebuild. The event log and the
audit log only grow: they have nothing to give back. How the last run went is also in
<data dir>/operations/compact.json, which /metrics reports.

  --grace <duration>  how old an unnamed image must be before it is set aside, and how long it
                      waits aside before it is deleted: 30m, 2h, 1d (default 1h)
  --dry-run           count what would be set aside, deleted and rewritten; change nothing`

export const command = defineCommand({
  name: 'compact',
  help: HELP,
  options: { grace: { type: 'string', default: '1h' }, 'dry-run': { type: 'boolean', default: false } },
  async run({ values, env, stdout }) {
    const graceMs = parseDuration('--grace', values.grace)
    return withStore(env, { create: false, writer: 'inline' }, async (opened, config) => {
      const dryRun = values['dry-run']
      const run = async (status?: OperationRecorder): Promise<number> => {
        const report = await compact({ store: opened.store, blobs: opened.blobs, dataDir: config.dataDir, graceMs, dryRun })
        const { images, readModel } = report
        const verb = dryRun ? 'would be ' : ''
        const imagesLine = `images: ${images.setAside} ${verb}set aside, ${images.deleted} ${verb}deleted (${images.deletedBytes} bytes), ${images.restored} ${verb}put back`
        const share = readModel.pages === 0 ? 0 : Math.round((readModel.freePages / readModel.pages) * 100)
        const readModelLine = `read model: ${readModel.freePages} of ${readModel.pages} pages free (${share}%); ${readModel.rewritten ? `rewritten to ${readModel.path}` : 'left as it is'}`
        status?.succeeded(`${imagesLine}; ${readModelLine}`)
        stdout.write(`${imagesLine}\n${readModelLine}\n`)
        return 0
      }
      // A run that changes things is an operation /metrics reports (<data dir>/operations/compact.json); a dry run is not.
      return dryRun ? run() : recordedOperation(config.dataDir, 'compact', run)
    })
  },
})
