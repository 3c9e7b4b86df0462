import { PassThrough } from 'node:stream'
import t from 'tap'
import { LIMITS, WaybillError } from '@waybill/domain'
import { readBody } from '../../src/body/read-body.js'

const KiB = 1024

/** A request body arriving in chunks of `chunk` bytes; `readBody` reads it from the start. */
function arriving(body: Buffer, chunk = 16 * KiB): PassThrough {
  const stream = new PassThrough()
  for (let at = 0; at < body.length; at += chunk) stream.write(body.subarray(at, at + chunk))
  stream.end()
  return stream
}

const refuse = (start: Buffer): void => { throw new WaybillError('bad_request', `refused at ${start.length}`) }

t.test('a body is read whole, with or without a Content-Length', async (t) => {
  const body = Buffer.alloc(300 * KiB, 0x61)
  t.same(await readBody(arriving(body), String(body.length), () => {}), body)
  t.same(await readBody(arriving(body), undefined, () => {}), body)
  t.same(await readBody(arriving(Buffer.alloc(0)), '0', refuse), Buffer.alloc(0), 'an empty body is for the parser to call no_body')
})

t.test('past the body limit: payload_too_large, from the Content-Length before any byte is read', async (t) => {
  const stream = new PassThrough()
  await t.rejects(readBody(stream, String(LIMITS.bodyMaxBytes + 1), () => {}), { code: 'payload_too_large' })
  t.equal(stream.listenerCount('data'), 0, 'nothing was read')
  await t.rejects(readBody(arriving(Buffer.alloc(LIMITS.bodyMaxBytes + 1), 1024 * KiB), undefined, () => {}), { code: 'payload_too_large' })
  t.same((await readBody(arriving(Buffer.alloc(LIMITS.bodyMaxBytes), 1024 * KiB), undefined, () => {})).length, LIMITS.bodyMaxBytes)
})

t.test('the start is looked at each time what has arrived doubles, from 64 KiB', async (t) => {
  const looks: number[] = []
  const body = Buffer.alloc(1024 * KiB, 0x61)
  await readBody(arriving(body), String(body.length), (start) => { looks.push(start.length / KiB) })
  t.same(looks, [64, 128, 256, 512], 'not at the end: the parser checks the whole body')
})

t.test('a start past a limit is refused; the rest is read, slowly, and dropped', async (t) => {
  const body = Buffer.alloc(1024 * KiB, 0x61)
  const stream = arriving(body)
  let settled = false
  const reading = readBody(stream, String(body.length), refuse).finally(() => { settled = true })
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(settled, 'no answer before the body has all arrived')
  const began = performance.now()
  await t.rejects(reading, { code: 'bad_request', detail: 'refused at 65536' })
  t.ok(stream.readableEnded, 'the whole body was read')
  t.ok(performance.now() - began >= 100, 'about 6 MiB/s: 960 KiB take about 150 ms')
})

t.test('no look without a Content-Length (payload_too_large could still come), nor while the start may be blank', async (t) => {
  const body = Buffer.alloc(256 * KiB, 0x61)
  t.same(await readBody(arriving(body), undefined, refuse), body, 'chunked: no early refusal')

  const blank = Buffer.concat([Buffer.alloc(200 * KiB, 0x20), Buffer.from('x')])
  const looks: number[] = []
  await readBody(arriving(blank), String(blank.length), (start) => { looks.push(start.length / KiB) })
  t.same(looks, [], 'the first 128 KiB are white space; at 192 KiB (past the last doubling) no look is due')

  const late = Buffer.concat([Buffer.alloc(100 * KiB, 0x20), Buffer.from('x'), Buffer.alloc(200 * KiB, 0x20)])
  await t.rejects(readBody(arriving(late), String(late.length), refuse), { code: 'bad_request', detail: 'refused at 131072' }, 'looked at once a character shows')

  const nbsp = Buffer.concat([Buffer.from('\u00a0\u3000\ufeff'.repeat(30 * KiB)), Buffer.from('x')])
  t.same(await readBody(arriving(nbsp), String(nbsp.length), refuse), nbsp, 'U+00A0, U+3000 and U+FEFF are white space too')
})
