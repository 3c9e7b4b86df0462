#!/usr/bin/env node
import { dispatch } from './dispatch.js'
import { stopOnSignals } from './shutdown.js'

// The process entry, and the only module that touches `process`: the commands are given their
// arguments, environment, output streams and a stop signal (dispatch.ts), so the tests run them
// in-process (testing.ts).

// A reader that goes away (`waybill keys list | head`, `waybill projector | head`) is not an
// error of ours: stop quietly, as Unix tools do, instead of dying on an uncaught EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

// Everything Waybill creates (the event log, the read model, images, keys, certificates) is for
// the service's user only: files 0600, directories 0700, whatever the shell's umask says.
process.umask(0o077)

const world = { env: process.env, stdout: process.stdout, stderr: process.stderr, signal: new AbortController().signal }
// serve and projector stop on SIGINT/SIGTERM: in-flight work finishes, within 10 s.
process.exitCode = await dispatch(process.argv.slice(2), world, {
  runLong: async (run) => stopOnSignals(run, { log: await stopLog() }),
})

/**
 * Where serve and projector say why they stop: text on a terminal; elsewhere a JSON line in their
 * log's format, so that a log collector merging stdout and stderr reads one format. On stderr, by
 * descriptor (logDestination), so that it is written even when stdout's reader has gone away.
 * Loaded only by these two commands, which load the log format anyway.
 */
async function stopLog(): Promise<(line: string, level: 'info' | 'error', error?: Error) => void> {
  if (process.stderr.isTTY) return (line) => process.stderr.write(`${line}\n`)
  const { createLogger, logDestination } = await import('@waybill/http/observability')
  const log = createLogger({ level: 'info', destination: logDestination(2) })
  return (line, level, error) => log[level](error === undefined ? {} : { err: error }, line)
}
