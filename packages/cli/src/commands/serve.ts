import { existsSync } from 'node:fs'
import { startServer } from '@waybill/ingress'
import { ReadModel, readApi, startProjector, type Projector } from '@waybill/projector'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { closeOnSignals } from '../shutdown.js'
import { explainStartError } from '../start-errors.js'

const HELP = `Usage: waybill serve [--no-projector]

Runs the ingress: the HTTPS API (WAYBILL_HTTPS_PORT, default 8443) and the plain-HTTP listener
(WAYBILL_HTTP_PORT, default 8080) that answers only insecure_connection. On the first start of
an empty data directory it creates the sandbox test key and writes it to <data dir>/test-api-key.
SIGINT/SIGTERM finish in-flight requests, then exit.

The read API (GET /v1/orders…) is served too. The orders projector runs in this process unless
--no-projector is given (then run \`waybill projector\` as its own process).

Configuration comes from the environment; see README.md ("Configuration").`

export const command: CliCommand = {
  name: 'serve',
  summary: 'run the HTTPS ingress (and the plain-HTTP refusal listener)',
  help: HELP,
  async run(argv) {
    // --no-projector is the only option serve takes.
    const withProjector = !argv.includes('--no-projector')
    argv = argv.filter((arg) => arg !== '--no-projector')
    if (argv.length > 0) {
      process.stderr.write(`waybill serve: unexpected argument "${argv[0] ?? ''}"\n\n${HELP}\n`)
      return 2
    }
    const config = loadConfig()
    const opened = await openStore(config).catch((error: unknown) => { throw explainStartError(error, config) })
    const readModel = new ReadModel(config.dataDir)
    // /metrics reports the projector's lag once it runs (it starts after the server).
    let projectorLag: () => number = () => 0
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
        metricsPort: config.metricsPort,
        metricsHost: config.metricsHost,
      }, {
        store: opened.store,
        blobs: opened.blobs,
        projectorLag: () => projectorLag(),
        // The projector's read API, behind the same key check.
        plugins: [async (app) => {
          await app.register(readApi, { readModel, store: opened.store, blobs: opened.blobs, principalOf: (request) => request.principal })
        }],
      })
    } catch (error) {
      readModel.close()
      await opened.close()
      throw explainStartError(error, config)
    }
    const projector: Projector | null = withProjector
      ? startProjector({ store: opened.store, dataDir: config.dataDir, logger: server.app.log })
      : null
    if (projector !== null) projectorLag = () => projector.lag()
    const lines = [
      `waybill: listening on ${server.httpsUrl} (HTTPS; certificate ${server.certPath})`,
      `waybill: plain HTTP on port ${server.httpPort} answers only insecure_connection`,
      server.sandbox.created !== null
        ? `waybill: created the sandbox test key (shown once; also in ${server.sandbox.path}):\n  ${server.sandbox.created}`
        : existsSync(server.sandbox.path)
          ? `waybill: the sandbox test key is in ${server.sandbox.path}`
          : `waybill: no ${server.sandbox.path} (the store already held keys); see \`waybill keys list\``,
      `waybill: API docs at ${server.httpsUrl}/docs`,
      `waybill: metrics at ${server.metricsUrl ?? `${server.httpsUrl}/metrics`}`,
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
    const running = server
    return closeOnSignals(async () => {
      await running.close()
      await projector?.stop()
      readModel.close()
      await opened.close()
    }, { log: (line) => process.stderr.write(`${line}\n`) })
  },
}
