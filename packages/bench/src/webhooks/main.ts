#!/usr/bin/env node
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { runWebhookBench } from './run-webhook-bench.js'
import { formatWebhookReport } from './webhook-report.js'
import { runEntry } from '../run-entry.js'

const HELP = `Usage: pnpm bench:webhooks [--rounds <n>] [--seconds <n>] [--warmup <n>] [--connections <n>]

Whether a webhook receiver that never answers slows the ingress. Starts two \`waybill serve\` on
fresh temporary data directories, one without a webhook endpoint and one with an endpoint whose
receiver (in this process) takes every request and never answers, and drives them in turn with
autocannon over HTTPS, phase by phase (ORDER_ADD; add, update, complete with a PNG), --rounds
times, alternating which goes first. Prints each run's req/s, the medians, the run-to-run noise
(the spread of each service's own runs) and whether the difference lies within it; then that
every acknowledged event was stored and queued for the dead endpoint, and its attempts.

  --rounds <n>       runs of each phase on each service (default 3)
  --seconds <n>      length of each run (default 10)
  --warmup <n>       unmeasured warm-up of each service first (default 3)
  --connections <n>  concurrent connections (default 64)

The client and the receiver run in this process and compete with the servers for the same cores.`

async function main(argv: readonly string[]): Promise<number> {
  let values
  try {
    values = parseArgs({
      args: [...argv],
      options: { rounds: { type: 'string' }, seconds: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }).values
    for (const name of ['rounds', 'seconds', 'warmup', 'connections'] as const) {
      const value = values[name]
      if (value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= (name === 'warmup' ? 0 : name === 'rounds' ? 2 : 1))) {
        throw new Error(`--${name}: expected a whole number${name === 'rounds' ? ' of at least 2 (the noise is the spread of the rounds)' : ''}, got "${value}"`)
      }
    }
  } catch (error) {
    process.stderr.write(`bench:webhooks: ${(error as Error).message}\n\n${HELP}\n`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`)
    return 0
  }
  const options = {
    rounds: Number(values.rounds ?? 3),
    seconds: Number(values.seconds ?? 10),
    warmupSeconds: Number(values.warmup ?? 3),
    connections: Number(values.connections ?? 64),
    log: (line: string): void => { process.stderr.write(`${line}\n`) },
  }
  const figures = await runWebhookBench(options)
  process.stdout.write(`${formatWebhookReport(figures, options.connections, loadavg())}\n`)
  const lost = [figures.plain, figures.dead].some((runs) => runs.storedEvents < runs.acknowledged)
  return lost ? 1 : 0
}

runEntry('bench:webhooks', main)
