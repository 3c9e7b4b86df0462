/**
 * The checkpoint thread. It copies committed WAL frames into the database file with PASSIVE
 * checkpoints, which never wait for (nor block) the writer or readers, so that the writer's
 * commits no longer pay for a checkpoint now and then. See BackgroundCheckpointer.
 */
import { type MessagePort, workerData } from 'node:worker_threads'
import { openConnection } from './connection.js'

interface CheckpointConfig { readonly path: string; readonly busyTimeoutMs: number; readonly intervalMs: number }

const { config, port } = workerData as { config: CheckpointConfig; port: MessagePort }
const db = openConnection(config.path, { busyTimeoutMs: config.busyTimeoutMs })
let timer: NodeJS.Timeout | null = null

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {
    // A failed checkpoint (disk full, I/O error) loses nothing: the frames stay in the WAL and
    // the next attempt, or the writer's own backstop checkpoint, copies them.
  }
  timer = setTimeout(checkpoint, config.intervalMs)
}

port.on('message', () => {
  if (timer !== null) clearTimeout(timer)
  db.close()
  port.close()
})
timer = setTimeout(checkpoint, config.intervalMs)
