import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { openSqliteEventStore, verifyStreamChain } from '../../src/index.js'
import { tempDir } from '../store-fixture.js'

const CHILD = fileURLToPath(new URL('./crash-appender.ts', import.meta.url))
const ACKS_BEFORE_KILL = 400

for (const writer of ['inline', 'worker'] as const) {
  t.test(`every acknowledged append survives SIGKILL of the writing process (${writer} writer)`, async (t) => {
    const path = join(await tempDir(t), 'events.db')
    // Same node, same loader flags as this test, so the child runs the TypeScript sources too.
    const child = spawn(process.execPath, [...process.execArgv, CHILD, path, writer], { stdio: ['ignore', 'pipe', 'inherit'] })
    const acknowledged: Array<{ stream: string; revision: number; id: string }> = []
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
    for await (const line of createInterface({ input: child.stdout })) {
      if (line === 'ready') continue
      const [stream = '', revision = '', id = ''] = line.split(' ')
      acknowledged.push({ stream, revision: Number(revision), id })
      if (acknowledged.length === ACKS_BEFORE_KILL) child.kill('SIGKILL')
    }
    t.equal(await exited, 'SIGKILL', 'the child was killed mid-stream, not closed')
    t.ok(acknowledged.length >= ACKS_BEFORE_KILL)

    const store = await openSqliteEventStore({ path })
    t.teardown(() => store.close())
    const missing: string[] = []
    const streams = new Map<string, Awaited<ReturnType<typeof store.readStream>>>()
    for (const ack of acknowledged) {
      if (!streams.has(ack.stream)) streams.set(ack.stream, await store.readStream(ack.stream))
      if (streams.get(ack.stream)![ack.revision]?.id !== ack.id) missing.push(`${ack.stream}@${ack.revision}`)
    }
    t.same(missing, [], `all ${acknowledged.length} acknowledged events are there`)
    for (const events of streams.values()) t.same(verifyStreamChain(events), { ok: true })
    const all = await store.readAll({ maxCount: 100_000 })
    t.ok(all.every((e, i) => e.position.commit === BigInt(i + 1)), 'the log is gap-free after the crash')
    const stored = all.filter((e) => e.streamName === 'order-crash-0').length
    const next = await store.appendToStream('order-crash-0', [{ id: randomUUID(), type: 'After', data: {} }],
      { expectedRevision: stored - 1 })
    t.equal(next.nextExpectedRevision, stored, 'the store takes appends after recovery, at the next revision')
  })
}
