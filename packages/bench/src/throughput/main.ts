#!/usr/bin/env node
import { mkdir } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { hottestFunctions } from './profile-summary.js'
import { acknowledged, formatProfile, formatReport } from './report.js'
import { runBench } from './run-bench.js'
import { runEntry } from '../run-entry.js'

const HELP = `Usage: pnpm bench [--seconds <n>] [--warmup <n>] [--connections <n>] [--rate <n>] [--cpu-prof <dir>] [--no-ceiling] [--no-projector]

Throughput benchmark. Starts \`waybill serve\` on a fresh temporary data directory and two
ceilings: the bare ceiling (Fastify over HTTPS, the envelope validated by a JSON schema, the key
compared with a constant, 201 with an empty body, nothing stored), and the same app with events
kept in memory (no SQLite, no fsync), which measures the store's cost alone. Drives them in turn, phase by phase, with autocannon over HTTPS (phase 1: ORDER_ADD for new
orders; phase 2: add, update, then complete with a small PNG; optional phase 3: that mix at a
fixed rate). Then stops them and checks that every event the service acknowledged is in its
store. Prints, for each server, req/s, p50/p99 latency, non-2xx counts and its own CPU per
answered request (user + system of its process and its children, every thread, read from
/proc before and after each phase; Linux only), each server's CPU per request as a ratio to
the bare ceiling's, the service's req/s ratio to each ceiling, the service's goals (CPU per
request ≤ 120 µs, p99 ≤ 50 ms) and the load average.

  --seconds <n>      length of each measured phase (default 10)
  --warmup <n>       unmeasured warm-up before the phases (default 3)
  --connections <n>  concurrent connections (default 64)
  --rate <n>         phase 3: the mix at this fixed rate, for latency below saturation
                     (default 0: skipped; autocannon paces per connection, so the load comes in bursts)
  --cpu-prof <dir>   write V8 CPU profiles of both servers and print their top self-time functions
  --no-ceiling       measure the service only (neither ceiling)
  --no-projector     run the service without its projector thread (as with a separate
                     \`waybill projector\` process, which then still needs CPU of its own)

The client runs in this process and competes with the server for the same CPU cores: req/s
and latency are a floor, while the servers' CPU per request leaves the client's CPU out.`

async function main(argv: readonly string[]): Promise<number> {
  let values
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        seconds: { type: 'string' }, rate: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' },
        'cpu-prof': { type: 'string' }, 'no-ceiling': { type: 'boolean' }, 'no-projector': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
    for (const name of ['seconds', 'warmup', 'connections', 'rate'] as const) {
      const value = values[name]
      if (value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= (name === 'warmup' || name === 'rate' ? 0 : 1))) {
        throw new Error(`--${name}: expected a whole number, got "${value}"`)
      }
    }
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${HELP}\n`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`)
    return 0
  }

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
  const measured = await runBench(options)
  const { service } = measured
  process.stdout.write(`${formatReport(measured, options.connections, loadavg())}\n`)
  for (const [name, figures] of [['service', service], ['bare ceiling', measured.bare], ['same app in memory', measured.ceiling]] as const) {
    if (figures?.profile != null) process.stdout.write(`${formatProfile(name, figures.profile, await hottestFunctions(figures.profile, 25))}\n`)
  }
  const lost = (service.storedEvents ?? 0) < acknowledged(service)
  return lost || service.phases.add.non2xx + service.phases.mix.non2xx + (service.fixedRate?.non2xx ?? 0) > 0 ? 1 : 0
}

runEntry('bench', main)
