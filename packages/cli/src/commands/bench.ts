import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startCeilingServer } from '@waybill/ingress'
import { hottestFunctions } from '../bench/profile-summary.js'
import { formatProfile, formatReport } from '../bench/report.js'
import { runBench } from '../bench/run-bench.js'
import type { CliCommand } from '../command.js'
import { loadConfig } from '../config.js'
import { openStore } from '../open-store.js'
import { closeOnSignals } from '../shutdown.js'

const HELP = `Usage: waybill bench [--seconds <n>] [--warmup <n>] [--connections <n>] [--rate <n>] [--cpu-prof <dir>] [--no-ceiling] [--no-projector]

Throughput benchmark. Starts \`waybill serve\` on a fresh temporary data directory and a
ceiling server: the same app and code paths, with orders kept in memory (no SQLite, no fsync).
Drives them in turn, phase by phase, with autocannon over HTTPS (phase 1: ORDER_ADD for new
orders; phase 2: add, update, then complete with a small PNG; optional phase 3: that mix at a
fixed rate). Then stops them and checks that every event the service acknowledged is in its
store. Prints req/s, p50/p99 latency, non-2xx counts and the service/ceiling ratio.

  --seconds <n>      length of each measured phase (default 10)
  --warmup <n>       unmeasured warm-up before the phases (default 3)
  --connections <n>  concurrent connections (default 64)
  --rate <n>         phase 3: the mix at this fixed rate, for latency below saturation
                     (default 0: skipped; autocannon paces per connection, so the load comes in bursts)
  --cpu-prof <dir>   write V8 CPU profiles of both servers and print their top self-time functions
  --no-ceiling       measure the service only
  --no-projector     run the service without its in-process projector (as with a separate
                     \`waybill projector\` process, which then still needs CPU of its own)

The client runs in this process and competes with the server for the same CPU cores.`

export const command: CliCommand = {
  name: 'bench',
  summary: 'throughput benchmark of the service against a ceiling server',
  help: HELP,
  async run(argv) {
    let values
    try {
      values = parseArgs({
        args: [...argv],
        options: {
          seconds: { type: 'string' }, rate: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' },
          'cpu-prof': { type: 'string' }, 'no-ceiling': { type: 'boolean' }, 'no-projector': { type: 'boolean' }, 'ceiling-server': { type: 'boolean' },
        },
      }).values
      for (const name of ['seconds', 'warmup', 'connections', 'rate'] as const) {
        const value = values[name]
        if (value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= (name === 'warmup' || name === 'rate' ? 0 : 1))) {
          throw new Error(`--${name}: expected a whole number, got "${value}"`)
        }
      }
    } catch (error) {
      process.stderr.write(`waybill bench: ${(error as Error).message}\n\n${HELP}\n`)
      return 2
    }
    if (values['ceiling-server'] === true) return runCeilingServer()

    const log = (line: string): void => { process.stderr.write(`${line}\n`) }
    const cpuProfDir = values['cpu-prof'] === undefined ? null : resolve(values['cpu-prof'])
    if (cpuProfDir !== null) await mkdir(cpuProfDir, { recursive: true })
    const options = {
      seconds: Number(values.seconds ?? 10),
      warmupSeconds: Number(values.warmup ?? 3),
      connections: Number(values.connections ?? 64),
      cpuProfDir,
      log,
      noProjector: values['no-projector'] === true,
      rate: Number(values.rate ?? 0),
      noCeiling: values['no-ceiling'] === true,
    }
    const { service, ceiling } = await runBench(options)
    process.stdout.write(`${formatReport(service, ceiling, options.connections)}\n`)
    for (const [name, figures] of [['service', service], ['ceiling', ceiling]] as const) {
      if (figures?.profile != null) process.stdout.write(`${formatProfile(name, figures.profile, await hottestFunctions(figures.profile, 25))}\n`)
    }
    const lost = (service.storedEvents ?? 0) < service.warmupOk + service.phases.add.ok + service.phases.mix.ok + (service.fixedRate?.ok ?? 0)
    return lost || service.phases.add.non2xx + service.phases.mix.non2xx + (service.fixedRate?.non2xx ?? 0) > 0 ? 1 : 0
  },
}

/** The ceiling as its own process, configured like `waybill serve` (internal to the benchmark). */
async function runCeilingServer(): Promise<number> {
  const config = loadConfig()
  const opened = await openStore({ ...config, store: 'sqlite' })
  const server = await startCeilingServer({
    dataDir: config.dataDir, httpsPort: config.httpsPort, httpPort: config.httpPort, host: config.host,
    tls: config.tls, trustProxy: config.trustProxy, logLevel: config.logLevel, rateLimit: config.rateLimit,
  }, opened.store)
  process.stdout.write(`waybill ceiling: listening on ${server.httpsUrl} (HTTPS; orders in memory)\n`)
  return closeOnSignals(async () => {
    await server.close()
    await opened.close()
  })
}
