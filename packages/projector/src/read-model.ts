// Only for src/bench/rebuild-bench.ts, which imports this path and is moving to its own package
// (packages/bench) in a parallel change; delete this file when src/bench/ is gone.
export { ReadModel } from './orders/reader.js'
