import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { startServer } from '@waybill/http'
import { KeyRing } from '@waybill/keys'
import { AuditLog, ReadModel } from '@waybill/projector'
import { aborted, defineCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { tightenDataDir } from '../data-dir-modes.js'
import { openStore } from '../open-store.js'
import { startProjectorThread, type ProjectorThread } from '../projector-thread.js'
import { openAudit } from '../audit-setup.js'
import { explainStartError } from '../start-errors.js'

const HELP = `Usage: waybill serve [--no-projector]

Runs the ingress: the HTTPS API (WAYBILL_HTTPS_PORT, default 8443) and the plain-HTTP listener
(WAYBILL_HTTP_PORT, default 8080) that answers only insecure_connection. On the first start of
an empty data directory it creates the sandbox test key and writes it to <data dir>/test-api-key.
SIGINT/SIGTERM finish in-flight requests, then exit.

The read API (GET /v1/orders…) is served too, and the auditors' web console at /console/. The projector (the orders read model and the audit log) runs in this process, on a thread
of its own, and delivers the webhooks (\`waybill webhooks\`), unless --no-projector is given (then
run \`waybill projector\` as its own process).

Configuration comes from the environment; see README.md ("Configuration").`

export const command = defineCommand({
  name: 'serve',
  help: HELP,
  options: { 'no-projector': { type: 'boolean' } },
  longRunning: true,
  async run({ values, env, stdout, stderr, signal }) {
    const withProjector = values['no-projector'] !== true
    const config = loadConfig(env)
    // Before the store opens: SQLite gives its -wal and -shm files the database file's mode.
    const loosened = existsSync(config.dataDir) ? await tightenDataDir(config.dataDir) : []
    const opened = await openStore(config).catch((error: unknown) => { throw explainStartError(error, config) })
    if (loosened.length > 0) {
      stderr.write(`waybill: tightened the modes of ${loosened.length} path(s) in ${config.dataDir} (directories 0700, files 0600), e.g. ${loosened[0] ?? ''}\n`)
    }
    const readModel = new ReadModel(config.dataDir)
    const auditLog = new AuditLog(config.dataDir)
    const audit = openAudit(config)
    // /metrics reports the projector's lag and whether it is up once it runs (it starts after the server).
    let projector: ProjectorThread | null = null
    let server
    try {
      server = await startServer({
        dataDir: config.dataDir,
        httpsPort: config.httpsPort,
        httpPort: config.httpPort,
        host: config.host,
        tls: config.tls,
        trustProxy: config.trustProxy,
        logLevel: config.logLevel,
        rateLimit: config.rateLimit,
        addressLimit: { max: config.addressRateLimit, windowMs: config.rateLimit.windowMs },
        metrics: config.metrics,
        maxConnections: config.maxConnections,
        connectionLimits: config.connectionLimits,
        failedKeyLimit: { max: config.failedKeysPerAddress, windowMs: 60_000 },
        tlsPolicy: config.tlsPolicy,
        sandboxKey: config.sandbox,
      }, {
        store: opened.store,
        blobs: opened.blobs,
        readModel,
        audit: { log: auditLog, heads: audit.heads, publicKey: audit.key.publicKey },
        ...(withProjector ? { projector: { lag: () => projector?.lag() ?? 0, up: () => projector?.up() ?? false, webhooks: () => projector?.webhooks() ?? [] } } : {}),
      })
    } catch (error) {
      readModel.close()
      auditLog.close()
      audit.close()
      await opened.close()
      throw explainStartError(error, config)
    }
    // On a worker thread of its own, so that no request waits behind a read-model transaction.
    if (withProjector) projector = startProjectorThread(config, opened.store, server.app.log)
    const lines = [
      `waybill: listening on ${server.httpsUrl} (HTTPS; certificate ${server.certPath})`,
      `waybill: plain HTTP on port ${server.httpPort} answers only insecure_connection`,
      !server.sandbox.enabled
        ? 'waybill: the sandbox is off (WAYBILL_SANDBOX=off): no test key is made or accepted'
        : server.sandbox.created !== null
          ? `waybill: created the sandbox test key (shown once; also in ${server.sandbox.path}):\n  ${server.sandbox.created}`
          : existsSync(server.sandbox.path)
            ? `waybill: the sandbox test key is in ${server.sandbox.path}`
            : `waybill: no ${server.sandbox.path} (the store already held keys); see \`waybill keys list\``,
      ...audit.notice,
      `waybill: tree heads signed by key ${audit.key.keyId} (${audit.key.path}); GET /v1/audit/public-key`,
      ...await waitingReplacements(new KeyRing(opened.store), config.dataDir),
      `waybill: API docs at ${server.httpsUrl}/docs`,
      `waybill: auditors' console at ${server.httpsUrl}/console/`,
      `waybill: metrics at ${server.metricsUrl ?? '(not served)'}`,
    ]
    stdout.write(`${lines.join('\n')}\n`)
    await aborted(signal)
    await server.close()
    await projector?.stop()
    readModel.close()
    auditLog.close()
    audit.close()
    await opened.close()
    return 0
  },
})

/**
 * A line when replacement keys (issued because their keys were sent over plain HTTP) still wait
 * in `<data dir>/replaced-keys/` for the operator to hand them over: until then, the courier whose
 * key was revoked cannot send anything.
 */
async function waitingReplacements(keys: KeyRing, dataDir: string): Promise<string[]> {
  const dir = join(dataDir, 'replaced-keys')
  const names = await readdir(dir).catch(() => [])
  const active = await Promise.all(names.map(async (keyId) => (await keys.get(keyId))?.state === 'active'))
  const waiting = active.filter(Boolean).length
  return waiting === 0 ? [] : [`waybill: ${waiting} replacement key(s) wait in ${dir} for hand-over to their couriers (\`waybill keys list\` shows which)`]
}
