import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { openMemoryEventStore, WrongExpectedVersionError, type EventStore } from '@waybill/event-store'
import { keyStreamName, keyUseStreamName } from '../src/key-events.js'
import { KeyRing } from '../src/key-ring.js'
import { reportToStderr, UseRecorder } from '../src/key-usage.js'
import { failingAppendsAfter } from './stores.js'

const NOW = new Date('2025-03-01T08:00:00.000Z')

function clocked(store: EventStore = openMemoryEventStore(), failures: Array<[string, unknown]> = []) {
  const clock = { now: new Date(NOW) }
  const keys = new KeyRing(store, () => clock.now, { onUseNotRecorded: (error, keyId) => failures.push([keyId, error]) })
  return { store, clock, keys, failures }
}

t.test('authenticating notes the use in memory and writes nothing; a flush records it in the key\'s use stream', async (t) => {
  const { store, clock, keys } = clocked()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const head = await store.headPosition()
  t.ok(await keys.authenticate(issued.key))
  t.same(await store.headPosition(), head, 'the request wrote nothing')
  t.match(await keys.get(issued.record.keyId), { lastUsedAt: null })
  clock.now = new Date(NOW.getTime() + 5_000)
  t.ok(await keys.authenticate(issued.key))
  await keys.flushUses()
  t.match(await keys.get(issued.record.keyId), { lastUsedAt: clock.now.toISOString() }, 'the latest use noted')
  const uses = await store.readStream(keyUseStreamName(issued.record.keyId))
  t.same(uses.map((e) => [e.type, e.data]), [['KeyUsed', { key_id: issued.record.keyId, used_at: clock.now.toISOString() }]])
  t.same((await store.readStream(keyStreamName(issued.record.keyId))).map((e) => e.type), ['KeyIssued'], 'the key stream, which every request reads, stays as it was')
  t.match((await keys.list())[0], { lastUsedAt: clock.now.toISOString() })
})

t.test('a use is recorded at most once a minute per key, across key rings too', async (t) => {
  const { store, clock, keys } = clocked()
  const other = new KeyRing(store, () => clock.now)
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  const uses = async () => (await store.readStream(keyUseStreamName(issued.record.keyId))).map((e) => e.data['used_at'])
  for (const offset of [0, 20_000, 59_999]) {
    clock.now = new Date(NOW.getTime() + offset)
    await keys.authenticate(issued.key)
    await other.authenticate(issued.key)
    await Promise.all([keys.flushUses(), other.flushUses()])
  }
  t.same(await uses(), [NOW.toISOString()], 'one use within the minute, whichever ring wrote it')
  clock.now = new Date(NOW.getTime() + 60_000)
  await other.authenticate(issued.key)
  await other.flushUses()
  t.same(await uses(), [NOW.toISOString(), clock.now.toISOString()])
  await keys.flushUses()
  t.equal((await uses()).length, 2, 'nothing noted, nothing written')
})

t.test('uses of a key in its grace are recorded: the operator sees whether the old key is still used', async (t) => {
  const { clock, keys } = clocked()
  const old = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.rotate(old.record.keyId, 'routine', { graceMs: 3600_000 })
  clock.now = new Date(NOW.getTime() + 120_000)
  await keys.authenticate(old.key)
  await keys.flushUses()
  t.match(await keys.get(old.record.keyId), { state: 'rotated', lastUsedAt: clock.now.toISOString() })
})

t.test('a store that cannot take the write: the request is answered all the same, the failure is reported', async (t) => {
  const store = openMemoryEventStore()
  const issued = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  const { keys, failures } = clocked(failingAppendsAfter(store, 0))
  t.match(await keys.authenticate(issued.key), { keyId: issued.record.keyId })
  await keys.flushUses()
  t.equal(failures.length, 1)
  t.equal(failures[0]?.[0], issued.record.keyId)
  t.match(failures[0]?.[1], { name: 'StoreUnavailableError' })
  t.match(await keys.authenticate(issued.key), { keyId: issued.record.keyId }, 'and the next request too')
})

t.test('racing writers: decided again after a lost race, and given up after three, reported', async (t) => {
  const store = openMemoryEventStore()
  const issued = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  let conflicts = 0
  const racing = (times: number): EventStore => ({
    readStream: store.readStream.bind(store),
    readAll: store.readAll.bind(store),
    headPosition: store.headPosition.bind(store),
    close: store.close.bind(store),
    appendToStream: async (name, events, options) => {
      if (conflicts < times) {
        conflicts += 1
        throw new WrongExpectedVersionError(name, options?.expectedRevision ?? 'any', 0)
      }
      return store.appendToStream(name, events, options)
    },
  })
  const once = clocked(racing(1))
  await once.keys.authenticate(issued.key)
  await once.keys.flushUses()
  t.same(once.failures, [])
  t.equal((await store.readStream(keyUseStreamName(issued.record.keyId))).length, 1, 'recorded on the second try')

  conflicts = 0
  const always = clocked(racing(3))
  always.clock.now = new Date(NOW.getTime() + 120_000)
  await always.keys.authenticate(issued.key)
  await always.keys.flushUses()
  t.equal(conflicts, 3)
  t.match(always.failures[0]?.[1], { name: 'WrongExpectedVersionError' })
})

t.test('a use of a key the store no longer holds is reported as key_unknown, not thrown', async (t) => {
  const store = openMemoryEventStore()
  const issued = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  let wiped = false
  const { keys, failures } = clocked({
    readStream: async (name, options) => (wiped ? [] : store.readStream(name, options)),
    readAll: store.readAll.bind(store),
    headPosition: store.headPosition.bind(store),
    close: store.close.bind(store),
    appendToStream: store.appendToStream.bind(store),
  })
  t.ok(await keys.authenticate(issued.key))
  wiped = true
  await keys.flushUses()
  t.match(failures, [[issued.record.keyId, { name: 'KeyRingError', code: 'key_unknown', message: `no key with id ${issued.record.keyId}` }]])
})

t.test('the timer writes noted uses by itself, one batch per interval, and close writes the rest and stops noting', async (t) => {
  const written: Array<[string, string]> = []
  const recorder = new UseRecorder(async (keyId, at) => { written.push([keyId, at.toISOString()]) }, () => undefined, 20)
  recorder.note('A', NOW)
  recorder.note('A', new Date(NOW.getTime() + 1))
  recorder.note('B', NOW)
  t.same(written, [], 'nothing written on the hot path')
  await sleep(80)
  t.same(written, [['A', '2025-03-01T08:00:00.001Z'], ['B', NOW.toISOString()]], 'the latest use of each key, once')
  recorder.note('C', NOW)
  await recorder.close()
  t.same(written.at(-1), ['C', NOW.toISOString()], 'close writes what is noted')
  recorder.note('D', NOW)
  await sleep(40)
  await recorder.flush()
  t.notOk(written.some(([keyId]) => keyId === 'D'), 'after close nothing more is noted')
})

t.test('KeyRing.close writes the uses noted so far', async (t) => {
  const { store, keys } = clocked()
  const issued = await keys.issue({ account: 'acme', scopes: ['orders:read'] })
  await keys.authenticate(issued.key)
  await keys.close()
  t.equal((await store.readStream(keyUseStreamName(issued.record.keyId))).length, 1)
})

t.test('by default a failure to record goes to stderr', async (t) => {
  const store = openMemoryEventStore()
  const issued = await new KeyRing(store).issue({ account: 'acme', scopes: ['orders:read'] })
  const keys = new KeyRing(failingAppendsAfter(store, 0))
  const lines: string[] = []
  const write = process.stderr.write.bind(process.stderr)
  process.stderr.write = (chunk: string) => { lines.push(chunk); return true }
  try {
    await keys.authenticate(issued.key)
    await keys.flushUses()
    reportToStderr('not an Error', 'X')
  } finally {
    process.stderr.write = write
  }
  t.match(lines[0], new RegExp(`^waybill: could not record a use of key ${issued.record.keyId}: disk full \\(test\\)\\n$`))
  t.equal(lines[1], 'waybill: could not record a use of key X: not an Error\n')
})
