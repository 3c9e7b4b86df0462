import { chunkRows } from './dist/scale/chunk-rows.js'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
const keys = Array.from({length: 5000}, (_, i) => ({ id: `k${i}`, secret: randomBytes(32) }))
rmSync('/tmp/blobs-prof', {recursive: true, force: true})
const c = process.cpuUsage(); const t = performance.now()
chunkRows({ from: 0, to: 5000, orders: 2500000, keys, blobDir: '/tmp/blobs-prof' })
const u = process.cpuUsage(c)
console.log('5000 orders', (performance.now()-t).toFixed(0), 'ms wall', ((u.user+u.system)/1000).toFixed(0), 'ms cpu', 'sys', (u.system/1000).toFixed(0))
