// `--import` entry of every test process (taprc.base.yaml's node-arg): registers the hooks that
// run the TypeScript sources and tests, in this thread. Node 20 does not hand a thread's module
// hooks to the worker threads it starts, but it runs `--import` in each of them, and each
// registration starts a hooks thread of its own that loads esbuild. A worker started on a built
// `.js` file (the SQLite writer, checkpoint and key threads of the packages a test uses from
// dist/) needs none, so it gets none: that was about a third of the CPU of each in-process
// `waybill serve` start. A worker started on a source (a `.ts` file, or a `.js` name that only
// exists as `.ts`, as a source names its siblings) registers its own. In a worker, argv[1] is
// the file it was started on.
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'
import { isMainThread } from 'node:worker_threads'

const entry = process.argv[1]
const needsHooks = isMainThread || entry === undefined || /\.[cm]?ts$/.test(entry) || !existsSync(entry.startsWith('file:') ? fileURLToPath(entry) : entry)
if (needsHooks) register(new URL('./typescript-hooks.mjs', import.meta.url))
