// `--import` entry of every test process (taprc.base.yaml's node-arg): the child processes a test
// starts (`waybill serve`, `pnpm start`, the crash and durability children) run as they run in
// production, without tap's instrumentation.
//
// tap starts each test file with @tapjs/processinfo, which hooks every spawn of the process to put
// itself into the child's NODE_OPTIONS: each Node child then loads a module-loading hooks thread,
// records every file it loads with its line lengths, and collects precise V8 coverage. Measured on
// `waybill serve` from start to listening: 1.4 s of CPU plain, 3.6 s so instrumented; the suite
// starts dozens. The listener below runs after processinfo's (this file is imported after it) and
// takes processinfo's option out of the child's NODE_OPTIONS again, the rest left as written.
// What is lost: the children's lines in the coverage reports, which no package enforces (the
// packages whose coverage is enforced, domain, keys and merkle, start no process); the commands'
// code is covered by the in-process tests (packages/cli/src/testing.ts).
import { createRequire, syncBuiltinESMExports } from 'node:module'

const spawnHooks = globalThis[Symbol.for('process-on-spawn@*:singletonId')]
const processinfo = /[\\/]@tapjs[\\/]processinfo[\\/]/
/** processinfo's `--import=…` (or `--loader=…`) in a NODE_OPTIONS string, with the space before it. */
const processinfoOption = new RegExp(String.raw`(^|\s+)\S*${processinfo.source}\S*`, 'g')

spawnHooks?.listeners.push((spawned) => {
  const env = { ...spawned.env }
  for (const name of Object.keys(env)) if (name.startsWith('_TAPJS_PROCESSINFO_')) delete env[name]
  const options = (env.NODE_OPTIONS ?? '').replace(processinfoOption, '').trim()
  if (options !== '') env.NODE_OPTIONS = options
  else delete env.NODE_OPTIONS
  spawned.env = env
})

// The same for the worker threads a test starts (the SQLite writer, the projector thread, …):
// Node starts each with the process's own flags, processinfo's `--import` among them, and
// processinfo then registers its hooks and its coverage session in each (~120 ms of CPU per
// thread). A Worker given no `execArgv` gets the test process's flags without processinfo's.
const threads = createRequire(import.meta.url)('node:worker_threads')
const { Worker: NodeWorker } = threads
const flags = process.execArgv.filter((flag) => !processinfo.test(flag))
threads.Worker = class Worker extends NodeWorker {
  constructor(filename, options = {}) {
    super(filename, options.execArgv === undefined ? { ...options, execArgv: flags } : options)
  }
}
syncBuiltinESMExports()
