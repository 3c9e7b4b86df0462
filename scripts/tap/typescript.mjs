// `--import` entry of every test process (taprc.base.yaml's node-arg): registers the hooks that
// run the TypeScript sources and tests, in this thread. Node 20 does not hand a thread's module
// hooks to the worker threads it starts, but it runs `--import` in each of them, so every
// SQLite writer and checkpoint thread registers its own.
import { register } from 'node:module'

register(new URL('./typescript-hooks.mjs', import.meta.url))
