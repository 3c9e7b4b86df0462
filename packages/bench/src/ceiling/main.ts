#!/usr/bin/env node
import { closeOnSignals, loadConfig } from '@waybill/cli'
import { startCeilingServer } from './start-ceiling.js'

// The ceiling as its own process, started by the throughput bench beside `waybill serve`. It reads
// the same environment through the CLI's one config loader (data dir for the certificate and the
// sandbox key, ports, host, log level, rate limits), so the two servers differ only in where events
// go. WAYBILL_STORE is ignored: the ceiling's store is always in memory.
const config = loadConfig(process.env)
const server = await startCeilingServer({
  dataDir: config.dataDir, httpsPort: config.httpsPort, httpPort: config.httpPort, host: config.host,
  tls: config.tls, trustProxy: config.trustProxy, logLevel: config.logLevel, rateLimit: config.rateLimit,
  addressLimit: { max: config.addressRateLimit, windowMs: config.rateLimit.windowMs },
})
// The bench waits for this line to learn the port.
process.stdout.write(`waybill ceiling: listening on ${server.httpsUrl} (HTTPS; events in memory)\n`)
process.exitCode = await closeOnSignals(() => server.close())
