import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { startServer } from '@waybill/http'
import { KeyRing, type SandboxKey } from '@waybill/keys'
import { AuditLog, HeadStore, holdsUnsealed, ReadModel } from '@waybill/projector'
import { aborted, defineCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { tightenDataDir } from '../data-dir-modes.js'
import { openStore } from '../open-store.js'
import { operatorLines } from '../operator-lines.js'
import { startProjectorThread, type ProjectorThread } from '../projector-thread.js'
import { startConfiguredRetention } from '../retention-setup.js'
import { openSigning } from '../audit-setup.js'
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
    const loosened = existsSync(config.dataDir) ? await tightenDataDir(config.dataDir, { blobFiles: false }) : []
    const opened = await openStore(config).catch((error: unknown) => { throw explainStartError(error, config) })
    const say = operatorLines(stdout, stderr)
    if (loosened.length > 0) {
      say.warn(`waybill: tightened the modes of ${loosened.length} path(s) in ${config.dataDir} (directories 0700, files 0600), e.g. ${loosened[0] ?? ''}`)
    }
    // The projector alone holds the private tree-head key (docs/audit.md#key-lifecycle): with
    // --no-projector this process never opens WAYBILL_AUDIT_KEY_DIR, and serves the public keys
    // from the heads file. With the projector, a key directory that does not hold the key the
    // heads are signed with stops the start here, before anything listens.
    let signing
    try {
      signing = withProjector ? openSigning(config, { refuse: true }) : null
    } catch (error) {
      await opened.close()
      throw error
    }
    // Checked, and made on a first start: the projector thread opens it again for itself.
    signing?.close()
    const readModel = new ReadModel(config.dataDir)
    const auditLog = new AuditLog(config.dataDir)
    const heads = HeadStore.inDataDir(config.dataDir)
    // /metrics and /readyz follow the projector once it runs (it starts after the server).
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
        subjectKeys: opened.keys,
        readModel,
        audit: { log: auditLog, heads },
        ...(withProjector ? { projector: { status: () => projector?.status() ?? null, webhooks: () => projector?.webhooks() ?? [] } } : {}),
      })
    } catch (error) {
      readModel.close()
      auditLog.close()
      heads.close()
      await opened.close()
      throw explainStartError(error, config)
    }
    // On a worker thread of its own, so that no request waits behind a read-model transaction.
    if (withProjector) projector = startProjectorThread(config, opened.store, server.app.log)
    const retention = withProjector ? startConfiguredRetention(config, opened, readModel, server.app.log) : null
    say.info(`waybill: listening on ${server.httpsUrl} (HTTPS; certificate ${server.certPath})`, { url: server.httpsUrl })
    say.info(`waybill: plain HTTP on port ${server.httpPort} answers only insecure_connection`, { port: server.httpPort })
    say.info(sandboxLine(server.sandbox, stdout.isTTY === true))
    if (signing === null) {
      say.info(`waybill: this process signs no tree head (--no-projector) and holds no signing key; the projector does. Current key: ${heads.currentKey()?.key_id ?? 'none recorded yet'}; GET /v1/audit/public-keys`)
    } else {
      // The public key's PEM lines stay together: one log line.
      if (signing.notice.length > 0) say.info(signing.notice.join('\n'))
      say.info(`waybill: tree heads signed by key ${signing.key?.keyId ?? ''} (${signing.key?.path ?? ''}); GET /v1/audit/public-keys`)
    }
    for (const line of await waitingReplacements(new KeyRing(opened.store), config.dataDir)) say.warn(line)
    if (await holdsUnsealed(opened.store)) {
      say.warn('waybill: this log holds orders stored before personal data was sealed (schema version 1): they take no new delivery and cannot be erased until `waybill seal` has run (docs/personal-data.md#data-written-before-sealing)')
    }
    say.info(`waybill: API docs at ${server.httpsUrl}/docs`)
    say.info(`waybill: auditors' console at ${server.httpsUrl}/console/`)
    // Last: `startServe` (testing.ts) waits for it.
    say.info(`waybill: metrics at ${server.metricsUrl ?? '(not served)'}`)
    await aborted(signal)
    await retention?.stop()
    await server.close()
    await projector?.stop()
    readModel.close()
    auditLog.close()
    heads.close()
    await opened.close()
    return 0
  },
})

/**
 * What the start says of the sandbox test key. A key it made is shown on a terminal only, once:
 * anywhere else the start's lines are log lines, which log aggregation keeps and shows to whoever
 * reads logs, so there the key is only in its file (0600).
 */
function sandboxLine(sandbox: SandboxKey, onTerminal: boolean): string {
  if (!sandbox.enabled) return 'waybill: the sandbox is off (WAYBILL_SANDBOX=off): no test key is made or accepted'
  if (sandbox.created !== null) {
    return onTerminal
      ? `waybill: created the sandbox test key (shown once; also in ${sandbox.path}):\n  ${sandbox.created}`
      : `waybill: created the sandbox test key; it is in ${sandbox.path} (not shown here: these lines are logs)`
  }
  return existsSync(sandbox.path)
    ? `waybill: the sandbox test key is in ${sandbox.path}`
    : `waybill: no ${sandbox.path} (the store already held keys); see \`waybill keys list\``
}

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
