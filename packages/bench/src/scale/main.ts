#!/usr/bin/env node
import { mkdir } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { buildStore } from './build-store.js'
import { measureStores } from './measure-store.js'
import { formatScaleReport } from './scale-report.js'
import { PER_ORDER } from './shape.js'
import { runEntry } from '../run-entry.js'

const HELP = `Usage: pnpm bench:scale [--dir <dir>] [--small <events>] [--large <events>] [--build-only]
                        [--requests <n>] [--rounds <n>] [--connections <n>] [--ingest-seconds <n>] [--threads <n>]

Scale benchmark: whether the service's costs stay flat as its log grows. Builds (or reuses) two
stores of order events as the service stores them (personal fields sealed per order, photos
sealed in the blob store, eight accounts of uneven size, four events per order), in
<dir>/<events>/, loaded directly with the store's own hashing and brought up by the project's
own rebuild and projector; a build that was stopped carries on where it was. Then starts
\`waybill serve\` on both and times each read over HTTPS on one and then the other, round after
round (an order, its events, its proofs, the list with each filter and a deep cursor; orders
spread over the whole log); the server's own CPU per event of a short ORDER_ADD load (from
/proc); \`waybill verify\` and \`waybill audit verify\`; the bytes on disk per event. Prints both
sizes side by side with their ratio, against the goals: every read's p99 within 2× and the
ingest's CPU per event within 1.2×.

  --dir <dir>             where the stores are kept (default: <tmp>/waybill-scale); 10,000,000
                          events take about 25 GB
  --small <events>        the small store (default 100000)
  --large <events>        the large store (default 10000000)
  --build-only            build both stores (or the one --small/--large names, with the other 0) and stop
  --requests <n>          timed requests per read and store (default 2000)
  --rounds <n>            each read runs this many times on each store, the two in turn (default 4)
  --connections <n>       connections the reads are sent over (default 4)
  --ingest-seconds <n>    length of the ORDER_ADD load (default 10, after 2 s unmeasured; 16 connections)
  --threads <n>           threads sealing the events while a store is built (default 2)

Figures only: nothing here asserts a speed. The exit code is 1 when a request failed or a
verification did not pass, 2 on a usage error.`

async function main(argv: readonly string[]): Promise<number> {
  let values
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        dir: { type: 'string' }, small: { type: 'string' }, large: { type: 'string' }, 'build-only': { type: 'boolean' },
        requests: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' }, 'ingest-seconds': { type: 'string' }, threads: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
    for (const name of ['small', 'large', 'requests', 'rounds', 'connections', 'ingest-seconds', 'threads'] as const) {
      const value = values[name]
      const least = name === 'threads' || (values['build-only'] === true && (name === 'small' || name === 'large')) ? 0 : 1
      if (value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= least)) throw new Error(`--${name}: expected a whole number, got "${value}"`)
    }
    if (values.small !== undefined && values.small === values.large) throw new Error('--small and --large: two different sizes')
  } catch (error) {
    process.stderr.write(`bench:scale: ${(error as Error).message}\n\n${HELP}\n`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`)
    return 0
  }
  const log = (line: string): void => { process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`) }
  const dir = resolve(values.dir ?? join(tmpdir(), 'waybill-scale'))
  await mkdir(dir, { recursive: true })
  const sizes = [Number(values.small ?? 100_000), Number(values.large ?? 10_000_000)]
  const threads = Number(values.threads ?? 2)
  const built = []
  for (const events of sizes.filter((n) => n > 0)) {
    built.push(await buildStore(join(dir, String(events)), Math.ceil(events / PER_ORDER), { threads, log }))
  }
  if (values['build-only'] === true) return 0
  const options = {
    requests: Number(values.requests ?? 2000), rounds: Number(values.rounds ?? 4), connections: Number(values.connections ?? 4),
    ingestSeconds: Number(values['ingest-seconds'] ?? 10), ingestWarmupSeconds: 2, ingestConnections: 16, log,
  }
  const measured = await measureStores(built, options)
  const [small, large] = measured
  if (small === undefined || large === undefined) throw new Error('two stores were not measured')
  process.stdout.write(`${formatScaleReport(small, large, loadavg())}\n`)
  const failed = measured.some((m) => m.ingest.failed > 0 || Object.values(m.reads).some((r) => r.failed > 0) || m.verify.code !== 0 || m.auditVerify.code !== 0)
  return failed ? 1 : 0
}

runEntry('bench:scale', main)
