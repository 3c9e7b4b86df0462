import t from 'tap'
import { LIMITS, WaybillError } from '@waybill/domain'
import { checkJsonStructure } from '../../src/body/json-structure.js'
import { seededRandom } from '../seeded-random.js'

/** 'ok', or the detail of the bad_request the scan answers. */
function scan(text: string | Buffer): string {
  try {
    checkJsonStructure(typeof text === 'string' ? Buffer.from(text) : text)
    return 'ok'
  } catch (error) {
    if (error instanceof WaybillError && error.code === 'bad_request') return error.detail ?? ''
    throw error
  }
}

const NOT_JSON = 'The body is not valid JSON'

t.test('a delivery with two 5 MiB images passes, whatever its strings hold', async (t) => {
  const image = `data:image/png;base64,${Buffer.alloc(LIMITS.imageMaxBytes, 0xfb).toString('base64')}`
  const body = JSON.stringify({
    event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z',
    event_payload: { order_id: 'A "quoted" \\ id [1], {2}', address: 'é ✓ 😀', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann', pod: image, signature: image },
  }, null, 2)
  t.equal(scan(body), 'ok')
})

t.test('every shape of valid JSON passes', async (t) => {
  const valid = [
    '{}', '[]', '""', '0', '-1.5e+3', 'true', 'false', 'null', ' \t\r\n{ } ', '[[], {}, [{}], {"a": []}]',
    '{"a":1,"b":[1,2,{"c":null}],"d":"x"}', '"\\""', '"\\\\"', '"\\\\\\""', '"a\\u0022b"', '["\\\\", "\\"]"]',
    '{"k\\"ey": "v\\\\"}', '"[{,:}]"', '[1 , 2 ,3]', '{"a" : "b" , "c" : true}',
  ]
  for (const text of valid) t.equal(scan(text), 'ok', text)
})

t.test('a token out of place is refused as JSON.parse would refuse it', async (t) => {
  const invalid = [
    '{"a"}', '{"a":}', '{"a":1,}', '[1,]', '[,1]', '{,}', '{1:2}', '["a" "b"]', '"a" "b"', '{} {}', '1 2', '[1 2]',
    '"unterminated', '{"a":"\\"}', ']', '}', '[}', '{]', '{"a":1]', '"a":1', '[:]', 'tru e', '"a"x', '1"a"', '{"a"::1}',
  ]
  for (const text of invalid) {
    t.throws(() => { JSON.parse(text) }, text)
    t.equal(scan(text), NOT_JSON, text)
  }
})

t.test('it never refuses what JSON.parse accepts, and what it calls invalid JSON.parse refuses too', async (t) => {
  const random = seededRandom(13)
  const atoms = ['{', '}', '[', ']', ',', ':', '"a"', '"\\""', '"\\\\"', '"\\u00e9"', '1', '-1.5e3', 'true', 'null', ' ', '\n', '"', '\\', 'x', '"é"']
  let accepted = 0
  for (let round = 0; round < 20_000; round++) {
    let text = ''
    for (let n = random.below(10); n > 0; n--) text += random.pick(atoms)
    let parses = true
    try { JSON.parse(text) } catch { parses = false }
    const result = scan(text)
    if (parses) {
      accepted += 1
      if (result !== 'ok') t.fail(`valid JSON refused: ${JSON.stringify(text)} (${result})`)
    } else if (result !== 'ok' && result !== NOT_JSON) {
      t.fail(`invalid JSON refused with ${result}: ${JSON.stringify(text)}`)
    }
  }
  t.ok(accepted > 1000, `${accepted} of the random texts were valid JSON`)
})

t.test(`nesting: ${LIMITS.bodyMaxDepth} levels pass, one more is refused naming the limit`, async (t) => {
  const depth = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`
  t.equal(scan(depth(LIMITS.bodyMaxDepth)), 'ok')
  const refused = `The JSON body nests objects and arrays more than ${LIMITS.bodyMaxDepth} deep; at most ${LIMITS.bodyMaxDepth} levels are accepted`
  t.equal(scan(depth(LIMITS.bodyMaxDepth + 1)), refused)
  t.equal(scan(`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}`), refused, 'objects count as arrays do')
  t.equal(scan(`"${'['.repeat(100)}"`), 'ok', 'brackets in strings are text')
})

t.test(`fields: ${LIMITS.bodyMaxFields} members and elements pass in all, one more is refused`, async (t) => {
  const max = LIMITS.bodyMaxFields
  const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`
  const elements = (n: number) => `[${Array.from({ length: n }, (_, i) => `"${i}"`).join(',')}]`
  const refused = `The JSON body has more than ${max} object members and array elements; at most ${max} are accepted`
  t.equal(scan(members(max)), 'ok')
  t.equal(scan(members(max + 1)), refused)
  t.equal(scan(elements(max)), 'ok')
  t.equal(scan(elements(max + 1)), refused)
  t.equal(scan(`{"a":${elements(max - 1)}}`), 'ok', 'the member and its elements: 1 + 1,023')
  t.equal(scan(`{"a":${elements(max)}}`), refused, 'counted at every depth')
  t.equal(scan(`[${'[],'.repeat(max)}[]]`), refused, 'empty arrays are elements too')
})

t.test(`bytes outside strings: ${LIMITS.bodyMaxMarkupBytes} pass, one more is refused`, async (t) => {
  const max = LIMITS.bodyMaxMarkupBytes
  const refused = `The JSON body has more than ${max} bytes outside its strings (white space, punctuation, numbers); at most ${max} are accepted`
  // `{`, `:` and `}` are 3 bytes outside the strings.
  t.equal(scan(`{"a":"${'x'.repeat(max)}"}${' '.repeat(max - 3)}`), 'ok', 'strings do not count, their quotes neither')
  t.equal(scan(`{"a":"x"}${' '.repeat(max - 2)}`), refused)
  t.equal(scan(`[${'1'.repeat(max)}]`), refused, 'a long number')
  t.equal(scan(`${' '.repeat(LIMITS.bodyMaxBytes - 2)}{}`), refused, '16 MiB of white space')
})

t.test(`escapes: ${LIMITS.bodyMaxEscapes} pass, one more is refused`, async (t) => {
  const max = LIMITS.bodyMaxEscapes
  const refused = `The JSON body has more than ${max} escape sequences in its strings; at most ${max} are accepted`
  t.equal(scan(`["${'\\u00e9'.repeat(max)}"]`), 'ok')
  t.equal(scan(`["${'\\"'.repeat(max / 2)}", "${'\\\\'.repeat(max / 2)}"]`), 'ok', 'across strings')
  t.equal(scan(`["${'\\u00e9'.repeat(max)}", "\\n"]`), refused)
  t.equal(scan(`"${'\\\\a'.repeat(max + 1)}"`), refused)
})

t.test('the hostile bodies that took seconds are refused from their first bytes', async (t) => {
  const half = LIMITS.bodyMaxBytes / 2 - 1
  t.match(scan(`${'['.repeat(half)}${']'.repeat(half)}`), /nests objects and arrays more than/)
  t.match(scan(`{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":0`).join(',')}}`), /object members and array elements/)
})
