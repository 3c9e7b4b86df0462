// Preloaded with `node --import` by no-fastify.e2e.test.ts: registers resolve-recorder.mjs, which
// appends every URL the process resolves to the file named by WAYBILL_RESOLVED_LOG.
import { register } from 'node:module'

register('./resolve-recorder.mjs', import.meta.url, { data: { log: process.env.WAYBILL_RESOLVED_LOG } })
