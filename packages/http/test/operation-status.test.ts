import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import t from 'tap'
import { registerOperationMetrics } from '../src/metrics/operation-metrics.js'
import { readOperation, readOperations, recordedOperation, recordOperation, OPERATIONS_DIR } from '../src/operation-status/index.js'

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-operations-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

t.test('a run is recorded as it goes: running with its progress, then its outcome; a failure keeps the last success', async (t) => {
  const dir = await dataDir(t)
  let clock = Date.parse('2026-01-01T10:00:00Z')
  const now = () => new Date(clock)
  const first = recordOperation(dir, 'backup', now)
  t.match(await readOperation(dir, 'backup'), { operation: 'backup', state: 'running', started_at: '2026-01-01T10:00:00.000Z', done: null, last_success: null })
  first.progress(5, 10)
  t.match(await readOperation(dir, 'backup'), { done: null }, 'progress is written at most once a second')
  await new Promise((resolve) => setTimeout(resolve, 1_050))
  first.progress(7, 10)
  t.match(await readOperation(dir, 'backup'), { state: 'running', done: 7, total: 10 })
  clock += 60_000
  first.succeeded('3 files, 12 MB')
  t.match(await readOperation(dir, 'backup'), {
    state: 'succeeded', detail: '3 files, 12 MB', finished_at: '2026-01-01T10:01:00.000Z',
    last_success: { started_at: '2026-01-01T10:00:00.000Z', finished_at: '2026-01-01T10:01:00.000Z' },
  })
  first.failed('too late')
  t.equal((await readOperation(dir, 'backup'))?.state, 'succeeded', 'the first ending stands')

  clock += 3_600_000
  await t.rejects(recordedOperation(dir, 'backup', async () => { throw new Error('disk full') }), /disk full/, 'the failure is thrown on')
  const failed = await readOperation(dir, 'backup')
  t.match(failed, { state: 'failed', detail: 'disk full', finished_at: String })
  t.same(failed?.last_success, { started_at: '2026-01-01T10:00:00.000Z', finished_at: '2026-01-01T10:01:00.000Z' }, 'carried over from the run before')
  t.equal(await recordedOperation(dir, 'rebuild', async (status) => { status.progress(1, 1); return 42 }), 42)
  t.throws(() => recordOperation(dir, '../escape'), RangeError, 'an operation name is a plain word')
  t.same((await readFile(join(dir, OPERATIONS_DIR, 'rebuild.json'), 'utf8')).endsWith('\n'), true)
})

t.test('/metrics reads every status file: running, progress, last success, last failure, duration', async (t) => {
  const dir = await dataDir(t)
  const registry = new Registry()
  registerOperationMetrics(registry, dir)
  t.notMatch(await registry.metrics(), /waybill_operation_running\{/, 'no file, no sample')
  await mkdir(join(dir, OPERATIONS_DIR))
  const at = (s: string) => `2026-01-01T${s}.000Z`
  await writeFile(join(dir, OPERATIONS_DIR, 'backup.json'), JSON.stringify({
    operation: 'backup', state: 'failed', pid: 1, started_at: at('11:00:00'), updated_at: at('11:00:30'), finished_at: at('11:00:30'),
    done: 1, total: 4, detail: 'no room', last_success: { started_at: at('10:00:00'), finished_at: at('10:01:00') },
  }))
  await writeFile(join(dir, OPERATIONS_DIR, 'rebuild.json'), JSON.stringify({
    operation: 'rebuild', state: 'running', pid: 1, started_at: at('12:00:00'), updated_at: at('12:00:05'), finished_at: null,
    done: 50, total: 200, detail: null, last_success: null,
  }))
  await writeFile(join(dir, OPERATIONS_DIR, 'broken.json'), '{"operation": 1')
  await writeFile(join(dir, OPERATIONS_DIR, 'notes.txt'), 'not a status')
  t.same((await readOperations(dir)).map((s) => s.operation), ['backup', 'rebuild'], 'what is not a status file is left out')
  const text = await registry.metrics()
  const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1])
  t.equal(value('waybill_operation_running{operation="rebuild"}'), 1)
  t.equal(value('waybill_operation_running{operation="backup"}'), 0)
  t.equal(value('waybill_operation_progress_ratio{operation="rebuild"}'), 0.25)
  t.equal(value('waybill_operation_last_failed{operation="backup"}'), 1)
  t.notMatch(text, /waybill_operation_last_failed\{operation="rebuild"\}/, 'a running operation has not ended')
  t.equal(value('waybill_operation_last_success_timestamp_seconds{operation="backup"}'), Date.parse(at('10:01:00')) / 1000)
  t.equal(value('waybill_operation_last_duration_seconds{operation="backup"}'), 30)
  t.equal(value('waybill_operation_started_timestamp_seconds{operation="rebuild"}'), Date.parse(at('12:00:00')) / 1000)
  t.match(text, /^# TYPE waybill_operation_running gauge$/m)
})
