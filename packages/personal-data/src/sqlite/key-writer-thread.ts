/**
 * The key writer's thread. It owns the write connection, so that the main thread keeps serving
 * while a commit waits for fsync; requests posted meanwhile queue on the port and are drained,
 * all of them, into the next transaction: one fsync for every new order that arrived at once.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import type { KeyRequest } from '../key-store.js'
import { keyWrites, openKeyDatabase } from './key-database.js'
import type { FromKeyWorker, ToKeyWorker } from './key-writer-protocol.js'

const { path, port } = workerData as { path: string; port: MessagePort }
const send = (message: FromKeyWorker): void => port.postMessage(message)

let db: Database.Database
try {
  db = openKeyDatabase(path)
} catch (error) {
  send({ type: 'open_failed', message: (error as Error).message })
  port.close()
  process.exit(0)
}
const writes = keyWrites(db)
const inbox: ToKeyWorker[] = []
let scheduled = false

port.on('message', (message: ToKeyWorker) => {
  inbox.push(message)
  if (!scheduled) {
    scheduled = true
    setImmediate(drain)
  }
})
send({ type: 'ready' })

function drain(): void {
  scheduled = false
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) inbox.push(next.message as ToKeyWorker)
  const batch: Array<{ id: number; requests: readonly KeyRequest[] }> = []
  let closing = false
  for (const message of inbox.splice(0)) {
    if (message.type === 'create') batch.push(...message.items)
    else closing = true
  }
  if (batch.length > 0) {
    try {
      const keys = writes.create(batch.flatMap((item) => item.requests), new Date().toISOString())
      const answers: Array<typeof keys> = []
      let at = 0
      for (const item of batch) {
        answers.push(keys.slice(at, at + item.requests.length))
        at += item.requests.length
      }
      send({ type: 'created', ids: batch.map((item) => item.id), keys: answers })
    } catch (error) {
      send({ type: 'failed', ids: batch.map((item) => item.id), message: (error as Error).message, code: (error as { code?: string }).code })
    }
  }
  if (closing) {
    db.close()
    send({ type: 'closed' })
    port.close()
  }
}
