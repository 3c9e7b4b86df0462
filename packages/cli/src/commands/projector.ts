import { createLogger } from '@waybill/http/observability'
import { ReadModel, startProjector, type ProjectionStatus, type ProjectorStatus } from '@waybill/projector'
import { startWebhookDeliverer, type WebhookEndpointStatus } from '@waybill/webhooks'
import { openSigning } from '../audit-setup.js'
import { aborted, defineCommand, UsageError } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { operatorLines, type OperatorLines } from '../operator-lines.js'
import { listenProjectorHealth } from '../projector-listener.js'
import { startConfiguredRetention } from '../retention-setup.js'
import { deliverySettings } from '../webhook-settings.js'

const HELP = `Usage: waybill projector [--batch-size <n>] [--status-every <seconds>]

Runs the projector as its own process (so ingress and projector scale apart): two projections,
the orders read model and the audit log (which signs the tree heads), each reading the event log
from its own checkpoint, applying each batch and moving its checkpoint in one transaction,
following new events, and retrying with back-off on its own while its store or file fails. It
also delivers the webhooks (\`waybill webhooks\`): run one projector per data directory, and
\`waybill serve --no-projector\` beside it, so that one process delivers.
Says each projection's and each webhook endpoint's status (state, checkpoint, head, lag in
events; backlog, attempts) every --status-every seconds (default 10): text on a terminal, a JSON
log line otherwise. Serves /healthz, /readyz and /metrics (each endpoint's backlog and attempts
too) on WAYBILL_PROJECTOR_PORT (default 9465) at WAYBILL_METRICS_HOST (default 127.0.0.1). Logs
JSON lines on stdout, as \`waybill serve\` does. SIGINT/SIGTERM stop it after the batches in
flight.

  --batch-size <n>        events per transaction (default 1000)
  --status-every <secs>   seconds between status lines (default 10)`

export const command = defineCommand({
  name: 'projector',
  help: HELP,
  options: { 'batch-size': { type: 'string' }, 'status-every': { type: 'string' } },
  longRunning: true,
  async run({ values, env, stdout, stderr, signal }) {
    const batchSize = Number(values['batch-size'] ?? 1000)
    const statusEvery = Number(values['status-every'] ?? 10)
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError('--batch-size: expected a positive integer')
    if (!(statusEvery > 0)) throw new UsageError('--status-every: expected a positive number of seconds')
    const config = loadConfig(env)
    // The log of `waybill serve` in shape (pino's JSON lines), on stdout like its.
    const logger = createLogger({ level: config.logLevel, destination: stdout })
    const say = operatorLines(stdout, stderr)
    const opened = await openStore(config)
    let audit
    try {
      audit = openSigning(config, { refuse: true })
    } catch (error) {
      await opened.close()
      throw error
    }
    if (audit.notice.length > 0) say.info(audit.notice.join('\n'))
    const projector = startProjector({ store: opened.store, dataDir: config.dataDir, keys: opened.keys, batchSize, logger, audit: audit.options })
    const webhooks = startWebhookDeliverer({ store: opened.store, keys: opened.keys, dataDir: config.dataDir, logger, settings: deliverySettings(config) })
    const readModel = new ReadModel(config.dataDir)
    const retention = startConfiguredRetention(config, opened, readModel, logger)
    const stopBoth = async () => {
      await retention?.stop()
      readModel.close()
      await Promise.all([projector.stop(), webhooks.stop()])
    }
    const timer = setInterval(() => {
      sayStatus(say, projector.status())
      sayWebhooks(say, webhooks.status())
    }, statusEvery * 1000)
    const health = await listenProjectorHealth(projector, { port: config.projectorPort, host: config.metrics.host, dataDir: config.dataDir, heads: audit.heads, webhooks })
      .catch(async (error: unknown) => {
        clearInterval(timer)
        await stopBoth()
        audit.close()
        await opened.close()
        throw error
      })
    const address = health.address()
    const port = typeof address === 'object' && address !== null ? address.port : config.projectorPort
    const host = config.metrics.host.includes(':') ? `[${config.metrics.host}]` : config.metrics.host
    say.info(`projector: started on ${config.dataDir}; health and metrics on http://${host}:${port}`, { port })
    await aborted(signal)
    clearInterval(timer)
    health.close()
    await stopBoth()
    audit.close()
    await opened.close()
    return 0
  },
})

/** One line per projection: `projector: orders caught_up checkpoint 12/12 head 12/12 lag 0 applied 7`, with its figures as fields. */
function sayStatus(say: OperatorLines, status: ProjectorStatus): void {
  const line = (name: string, s: ProjectionStatus, extra = '', fields: object = {}): void => {
    say.info(`projector: ${name} ${s.state} checkpoint ${s.checkpoint ?? '-'} head ${s.head ?? '-'} lag ${s.lag} applied ${s.appliedEvents}${extra}`,
      { projection: name, state: s.state, checkpoint: s.checkpoint, head: s.head, lag: s.lag, applied: s.appliedEvents, ...fields })
  }
  const { orders, audit } = status
  line('orders', orders)
  if (audit !== null) {
    line('audit', audit, ` leaves ${audit.treeSize} signed ${audit.headSize ?? '-'}${audit.problem === null ? '' : ` PROBLEM: ${audit.problem}`}`,
      { leaves: audit.treeSize, signed: audit.headSize, problem: audit.problem })
  }
}

/** One line per webhook endpoint: `projector: webhook ep_… enabled backlog 0 oldest - delivered 12 failed 1`, with its figures as fields. */
function sayWebhooks(say: OperatorLines, endpoints: readonly WebhookEndpointStatus[]): void {
  for (const endpoint of endpoints) {
    const failed = endpoint.attempts.failed + endpoint.attempts.gone + endpoint.attempts.timeout + endpoint.attempts.error
    say.info(`projector: webhook ${endpoint.id} ${endpoint.enabled ? 'enabled' : 'DISABLED'} backlog ${endpoint.backlog} oldest ${endpoint.oldestPendingAt ?? '-'} `
      + `delivered ${endpoint.attempts.delivered} failed ${failed}${endpoint.disabledReason === null ? '' : ` (${endpoint.disabledReason})`}`,
    { webhook: endpoint.id, enabled: endpoint.enabled, backlog: endpoint.backlog, oldest: endpoint.oldestPendingAt, attempts: endpoint.attempts, reason: endpoint.disabledReason })
  }
}
