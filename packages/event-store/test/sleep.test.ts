import t from 'tap'
import { sleep } from '../src/index.js'

t.test('sleep waits its time, and an abort ends it early without rejecting', async (t) => {
  let started = Date.now()
  await sleep(30)
  t.ok(Date.now() - started >= 25, 'waited about 30 ms')
  const controller = new AbortController()
  started = Date.now()
  const waiting = sleep(60_000, controller.signal)
  setTimeout(() => controller.abort(), 10)
  await waiting
  t.ok(Date.now() - started < 5_000, 'an abort ends a 60 s sleep at once')
  started = Date.now()
  await sleep(60_000, AbortSignal.abort())
  t.ok(Date.now() - started < 5_000, 'a signal aborted before the call returns at once')
})

t.test('a failure that is not an abort still rejects', async (t) => {
  await t.rejects(sleep(1, {} as AbortSignal), { code: 'ERR_INVALID_ARG_TYPE' })
})
