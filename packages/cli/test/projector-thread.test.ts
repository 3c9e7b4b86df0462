import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { eventIdFor, orderDecider, streamNameFor, type OrderCommand } from '@waybill/domain'
import { handleCommand } from '@waybill/event-store'
import { AuditLog, ReadModel, type ProjectorLogger } from '@waybill/projector'
import { loadConfig } from '../src/config.js'
import { openStore } from '../src/open-store.js'
import { startProjectorThread } from '../src/projector-thread.js'

const metadata = { received_at: '2025-02-27T08:00:01Z', key_id: 'key-1', request_id: 'req-1', schema_version: 1 }

/** An ORDER_ADD as the first release stored it (schema version 1, personal fields in plain form): the projector reads it still. */
function add(orderId: string): OrderCommand {
  const data = {
    order_id: orderId, customer: 'C-7', location: 'L-3', status: 'pending' as const, address: '1 Quay Street',
    delivery_date: '2025-03-01T10:00:00Z', event_date: '2025-02-27T08:00:00Z',
  }
  return { type: 'ORDER_ADD', data, eventId: eventIdFor('acme', 'ORDER_ADD', data) } as unknown as OrderCommand
}

interface Logged { readonly level: string; readonly object: object; readonly message: string | undefined }

function recordingLogger(): ProjectorLogger & { lines: Logged[] } {
  const lines: Logged[] = []
  return {
    lines,
    info: (object, message) => { lines.push({ level: 'info', object, message }) },
    warn: (object, message) => { lines.push({ level: 'warn', object, message }) },
    error: (object, message) => { lines.push({ level: 'error', object, message }) },
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('serve\'s projector thread follows the store\'s appends into the read model, reports its lag, and signs a head when stopped', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-projector-thread-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const dataDir = join(dir, 'data')
  const config = loadConfig({ WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(dir, 'audit-key') })
  const opened = await openStore(config)
  t.teardown(() => opened.close())
  const log = recordingLogger()
  const thread = startProjectorThread(config, opened.store, log)
  t.equal(thread.status(), null, 'nothing reported before the thread has started')
  await handleCommand(opened.store, streamNameFor('acme', 'T-1'), orderDecider, add('T-1'), { metadata })
  const readModel = new ReadModel(dataDir)
  t.teardown(() => readModel.close())
  // The thread only learns of this process's appends from the main thread's notices (or its poll).
  await until('the order in the read model', () => { try { return readModel.getOrder('acme', 'T-1') !== null } catch { return false } })
  t.equal(readModel.getOrder('acme', 'T-1')?.customer, 'C-7')
  await until('a report of the applied event', () => (thread.status()?.orders.appliedEvents ?? 0) >= 1 && (thread.status()?.audit?.appliedEvents ?? 0) >= 1)
  t.equal(thread.lag(), 0)
  t.equal(thread.status()?.orders.state, 'caught_up')
  t.equal(thread.status()?.audit?.state, 'caught_up', 'the audit log, a projection of its own, caught up too')
  t.equal(thread.up(), true)
  await thread.stop()
  const auditLog = new AuditLog(dataDir, { create: false })
  t.teardown(() => auditLog.close())
  t.equal(auditLog.size(), 1, 'the order event is a leaf of the audit log')
  t.equal(thread.up(), false, 'not up once stopped')
  await thread.stop()
  t.ok(log.lines.some((line) => line.message === 'projector: signed a tree head'), 'the last leaves got a head on the way out (logged through the main thread)')
  t.notOk(log.lines.some((line) => line.level === 'error'), 'nothing failed')
})

t.test('a projector thread that dies is started again, with backoff, until stopped', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-projector-thread-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // A data directory that is a file: the thread cannot open the store and ends.
  const notADir = join(dir, 'file')
  await writeFile(notADir, 'not a directory')
  const config = loadConfig({ WAYBILL_DATA_DIR: notADir, WAYBILL_AUDIT_KEY_DIR: join(dir, 'audit-key') })
  const opened = await openStore(loadConfig({ WAYBILL_DATA_DIR: join(dir, 'data'), WAYBILL_AUDIT_KEY_DIR: join(dir, 'audit-key') }))
  t.teardown(() => opened.close())
  const log = recordingLogger()
  const thread = startProjectorThread(config, opened.store, log)
  await until('two restarts', () => log.lines.filter((line) => line.message === 'projector: its thread ended; starting it again').length >= 2)
  const delays = log.lines.filter((line) => line.message === 'projector: its thread ended; starting it again')
    .map((line) => (line.object as { restartInMs: number }).restartInMs)
  // Jittered in the upper half of each step: 250-500 ms, then 500-1,000 ms.
  t.ok(delays[0]! >= 250 && delays[0]! <= 500, `first wait ${delays[0]} ms`)
  t.ok(delays[1]! >= 500 && delays[1]! <= 1000, `second wait ${delays[1]} ms: the step doubles`)
  t.equal(thread.up(), false, '/metrics says the projector is not up')
  t.ok(log.lines.some((line) => line.message === 'projector: its thread failed'), 'the failure itself is logged')
  const started = Date.now()
  await thread.stop()
  t.ok(Date.now() - started < 2_000, 'stopping does not wait for the next restart')
})
