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
  runLong: (run) => stopOnSignals(run, { log: (line) => process.stderr.write(`${line}\n`) }),
})
