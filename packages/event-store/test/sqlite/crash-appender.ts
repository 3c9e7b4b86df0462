/**
 * Child process of durability.e2e.test.ts: appends without end from 16 concurrent
 * appenders and prints `<stream> <revision> <id>` for each append the store acknowledged, the
 * moment it is acknowledged. The parent SIGKILLs it mid-stream.
 */
import { randomUUID } from 'node:crypto'
import { openSqliteEventStore } from '../../src/index.js'

const [path, writer] = process.argv.slice(2) as [string, 'inline' | 'worker']
const store = await openSqliteEventStore({ path, writer })
process.stdout.write('ready\n')
await Promise.all(Array.from({ length: 16 }, async (_, n) => {
  const stream = `order-crash-${n}`
  for (let revision = 0; ; revision += 1) {
    const id = randomUUID()
    await store.appendToStream(stream, [{ id, type: 'Happened', data: { n, revision } }],
      { expectedRevision: revision === 0 ? 'no_stream' : revision - 1 })
    process.stdout.write(`${stream} ${revision} ${id}\n`)
  }
}))
