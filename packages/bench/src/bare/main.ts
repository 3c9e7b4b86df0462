#!/usr/bin/env node
import { closeOnSignals, loadConfig } from '@waybill/cli'
import { startBareServer } from './start-bare.js'

// The bare ceiling as its own process, started by the throughput bench beside `waybill serve`,
// configured from the same environment (data dir for the certificate, port, host).
const config = loadConfig(process.env)
const server = await startBareServer({ dataDir: config.dataDir, httpsPort: config.httpsPort, host: config.host })
// The bench waits for this line to learn the port.
process.stdout.write(`waybill bare ceiling: listening on ${server.httpsUrl} (HTTPS; nothing stored)\n`)
process.exitCode = await closeOnSignals(() => server.close())
