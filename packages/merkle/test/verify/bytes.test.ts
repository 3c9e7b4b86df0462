import t from 'tap'
import { base64ToBytes, bytesToHex, hashFromHex, hexToBytes } from '../../src/verify/index.js'
import { concat, equalBytes, utf8 } from '../../src/verify/bytes.js'
import { runHashing, runHashingSync, type Hashing } from '../../src/verify/hashing.js'

t.test('hex is lowercase, of an even length; a hash is 64 of it', async (t) => {
  t.same(hexToBytes('00ff10'), Uint8Array.of(0, 255, 16))
  t.same(hexToBytes(''), new Uint8Array(0))
  for (const bad of ['0', 'FF', 'zz', '0x00']) t.equal(hexToBytes(bad), null, bad)
  t.equal(bytesToHex(Uint8Array.of(0, 255, 16)), '00ff10')
  t.same(hashFromHex('ab'.repeat(32)), new Uint8Array(32).fill(0xab))
  t.equal(hashFromHex('ab'.repeat(31)), null)
  t.equal(hashFromHex('AB'.repeat(32)), null)
})

t.test('base64 is standard and padded, in the one form an encoder writes', async (t) => {
  const bytes = Uint8Array.of(0xfb, 0xff, 0x01, 0x02)
  t.same(base64ToBytes(Buffer.from(bytes).toString('base64')), bytes)
  t.same(base64ToBytes(''), new Uint8Array(0))
  for (const bad of ['+/8BAg', '-_8BAg==', '+/8BAg=', '+/8B Ag==', '+/8BAh==', 'AAAA=']) t.equal(base64ToBytes(bad), null, bad)
})

t.test('utf8, concat and equalBytes', async (t) => {
  t.same(utf8('zoë'), Uint8Array.of(0x7a, 0x6f, 0xc3, 0xab))
  t.same(concat(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3)), Uint8Array.of(1, 2, 3))
  t.ok(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2)))
  t.notOk(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3)))
  t.notOk(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3)))
})

t.test('steps written once run with a hash that answers at once or later, to the same end', async (t) => {
  // A stand-in hash that makes the order of requests visible: the steps must ask in order.
  const asked: string[] = []
  const hash = (bytes: Uint8Array): Uint8Array => {
    asked.push(bytesToHex(bytes))
    return Uint8Array.of(bytes.length)
  }
  function* steps(): Hashing<number[]> {
    const first = yield Uint8Array.of(1)
    const second = yield Uint8Array.of(2, 2)
    return [...first, ...second]
  }
  t.same(runHashingSync(steps(), hash), [1, 2])
  t.same(await runHashing(steps(), async (bytes) => hash(bytes)), [1, 2])
  t.same(await runHashing(steps(), hash), [1, 2], 'a synchronous hash given where a promise is awaited')
  t.same(asked, ['01', '0202', '01', '0202', '01', '0202'])
})
