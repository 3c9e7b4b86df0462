/**
 * The writer thread. It owns the write connection so that the main thread keeps serving
 * requests while a commit waits for fsync; appends posted meanwhile queue on the port and are
 * drained, all of them, into the next transaction.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import { BatchCommitter } from './batch-committer.js'
import { ensureSchema, openConnection } from './connection.js'
import type { FromWorker, QueuedAppend, ToWorker, WorkerConfig } from './worker-protocol.js'

const { config, port } = workerData as { config: WorkerConfig; port: MessagePort }
const send = (message: FromWorker): void => port.postMessage(message)

let db: Database.Database
try {
  db = openConnection(config.path, { busyTimeoutMs: config.busyTimeoutMs, walAutocheckpointPages: config.walAutocheckpointPages })
  ensureSchema(db)
} catch (error) {
  send({ type: 'open_failed', message: (error as Error).message, code: (error as { code?: string }).code })
  port.close()
  process.exit(0)
}
const committer = new BatchCommitter(db)
const inbox: ToWorker[] = []
let scheduled = false

port.on('message', (message: ToWorker) => {
  inbox.push(message)
  if (!scheduled) {
    scheduled = true
    setImmediate(drain)
  }
})
send({ type: 'ready' })

function drain(): void {
  scheduled = false
  // Take everything already waiting on the port, not just what has been dispatched so far.
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) {
    inbox.push(next.message as ToWorker)
  }
  const appends: QueuedAppend[] = []
  const flush = (): void => {
    while (appends.length > 0) {
      const batch = appends.splice(0, config.maxBatchSize)
      const outcomes = committer.commit(batch.map((item) => item.request))
      send({ type: 'batch', ids: batch.map((item) => item.id), outcomes })
    }
  }
  for (const message of inbox.splice(0)) {
    if (message.type === 'appends') {
      appends.push(...message.items)
    } else if (message.type === 'max_page_count') {
      flush()
      const value = db.pragma(`max_page_count = ${Math.trunc(message.pages)}`, { simple: true }) as number
      send({ type: 'pragma', id: message.id, value })
    } else {
      flush()
      db.close()
      send({ type: 'closed' })
      port.close()
      return
    }
  }
  flush()
}
