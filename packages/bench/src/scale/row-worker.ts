import { parentPort } from 'node:worker_threads'
import { chunkRows, type ChunkRequest } from './chunk-rows.js'

// A thread of the scale bench's load: seals and hashes chunks of orders and sends their rows
// back, in the order asked; the loading thread inserts them.
parentPort?.on('message', (request: ChunkRequest) => {
  parentPort?.postMessage(chunkRows(request))
})
