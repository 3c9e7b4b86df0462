import { startProjector, type ProjectionStatus, type ProjectorLogger, type ProjectorStatus } from '@waybill/projector'
import { startWebhookDeliverer, type WebhookEndpointStatus } from '@waybill/webhooks'
import { openAudit } from '../audit-setup.js'
import { aborted, defineCommand, UsageError, type Output } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { listenProjectorHealth } from '../projector-listener.js'
import { deliverySettings } from '../webhook-settings.js'

const HELP = `Usage: waybill projector [--batch-size <n>] [--status-every <seconds>]

Runs the projector as its own process (so ingress and projector scale apart): two projections,
the orders read model and the audit log (which signs the tree heads), each reading the event log
from its own checkpoint, applying each batch and moving its checkpoint in one transaction,
following new events, and retrying with back-off on its own while its store or file fails. It
also delivers the webhooks (\`waybill webhooks\`): run one projector per data directory, and
\`waybill serve --no-projector\` beside it, so that one process delivers.
Prints a status line per projection (state, checkpoint, head, lag in events) and per webhook
endpoint every --status-every seconds (default 10). Serves /healthz, /readyz and /metrics (each
projection's lag in events, each endpoint's backlog and attempts) on WAYBILL_PROJECTOR_PORT
(default 9465) at WAYBILL_METRICS_HOST (default 127.0.0.1).
SIGINT/SIGTERM stop it after the batches in flight.

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
    const opened = await openStore(config)
    const audit = openAudit(config)
    if (audit.notice.length > 0) stdout.write(`${audit.notice.join('\n')}\n`)
    const logger = lineLogger(config.logLevel, stderr)
    const projector = startProjector({ store: opened.store, dataDir: config.dataDir, batchSize, logger, audit: audit.options })
    const webhooks = startWebhookDeliverer({ store: opened.store, dataDir: config.dataDir, logger, settings: deliverySettings(config) })
    const timer = setInterval(() => stdout.write(statusLines(projector.status()) + webhookLines(webhooks.status())), statusEvery * 1000)
    const stopBoth = () => Promise.all([projector.stop(), webhooks.stop()])
    const health = await listenProjectorHealth(projector, webhooks, config.projectorPort, config.metrics.host).catch(async (error: unknown) => {
      clearInterval(timer)
      await stopBoth()
      audit.close()
      await opened.close()
      throw error
    })
    const address = health.address()
    const port = typeof address === 'object' && address !== null ? address.port : config.projectorPort
    stdout.write(`projector: started on ${config.dataDir}; health and metrics on http://${config.metrics.host.includes(':') ? `[${config.metrics.host}]` : config.metrics.host}:${port}\n`)
    await aborted(signal)
    clearInterval(timer)
    health.close()
    await stopBoth()
    audit.close()
    await opened.close()
    return 0
  },
})

/** One line per projection: `projector: orders caught_up checkpoint 12/12 head 12/12 lag 0 applied 7`. */
function statusLines(status: ProjectorStatus): string {
  const line = (name: string, s: ProjectionStatus, extra = ''): string =>
    `projector: ${name} ${s.state} checkpoint ${s.checkpoint ?? '-'} head ${s.head ?? '-'} lag ${s.lag} applied ${s.appliedEvents}${extra}\n`
  const { orders, audit } = status
  return line('orders', orders) + (audit === null ? ''
    : line('audit', audit, ` leaves ${audit.treeSize} signed ${audit.headSize ?? '-'}${audit.problem === null ? '' : ` PROBLEM: ${audit.problem}`}`))
}

/** One line per webhook endpoint: `projector: webhook ep_… enabled backlog 0 oldest - delivered 12 failed 1`. */
function webhookLines(endpoints: readonly WebhookEndpointStatus[]): string {
  return endpoints.map((endpoint) => `projector: webhook ${endpoint.id} ${endpoint.enabled ? 'enabled' : 'DISABLED'} backlog ${endpoint.backlog} `
    + `oldest ${endpoint.oldestPendingAt ?? '-'} delivered ${endpoint.attempts.delivered} failed ${endpoint.attempts.failed + endpoint.attempts.timeout + endpoint.attempts.error}`
    + `${endpoint.disabledReason === null ? '' : ` (${endpoint.disabledReason})`}\n`).join('')
}

/** JSON lines on stderr, like the server's pino output, without loading pino for three calls. */
function lineLogger(level: string, stderr: Output): ProjectorLogger {
  const rank: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 }
  const threshold = rank[level] ?? 30
  const write = (levelName: string, object: object, message?: string): void => {
    if ((rank[levelName] ?? 30) < threshold) return
    const extra = object instanceof Error ? { err: object.message } : object
    stderr.write(`${JSON.stringify({ level: levelName, time: new Date().toISOString(), msg: message, ...serialise(extra) })}\n`)
  }
  return {
    info: (object, message) => write('info', object, message),
    warn: (object, message) => write('warn', object, message),
    error: (object, message) => write('error', object, message),
  }
}

function serialise(object: object): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(object)) out[key] = value instanceof Error ? value.message : value
  return out
}
