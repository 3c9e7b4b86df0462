import t from 'tap'
import { LIMITS, WaybillError } from '@waybill/domain'
import { urlencodedFields } from '../../src/body/urlencoded.js'
import { seededRandom } from '../seeded-random.js'

const noPause = async (): Promise<void> => {}
const fieldsOf = (text: string | Buffer) => urlencodedFields(typeof text === 'string' ? Buffer.from(text) : text, noPause)
const asSearchParams = (text: string) => [...new URLSearchParams(text)]

async function detailOf(text: string): Promise<string> {
  try {
    await fieldsOf(text)
    return 'ok'
  } catch (error) {
    if (error instanceof WaybillError && error.code === 'bad_request') return error.detail ?? ''
    throw error
  }
}

t.test('fields come out as URLSearchParams reads them', async (t) => {
  const samples = [
    'event=ORDER_ADD&event_payload[order_id]=A+1&event_payload[customer]=caf%C3%A9', '?a=1', '??a=1', 'a=1&&b=2&', '&', 'a', 'a=',
    '=b', 'a==b=c', '%zz=%4', 'a=%2B%2b+%20', '%5B%5D=%26%3D', 'x=%F0%9F%98%80', 'x=%C3', 'x=%FF%FE', 'x=%ED%A0%80', 'x=%EF%BB%BFy',
    '%EF%BB%BF=1',
  ]
  for (const text of samples) t.same(await fieldsOf(text), asSearchParams(text), text)
})

t.test('random ASCII forms read the same as with URLSearchParams', async (t) => {
  const random = seededRandom(7)
  const atoms = ['a', 'b', '=', '&', '+', '%', '%2', '%2B', '%2b', '%zz', '%41', '%C3', '%A9', '%C3%A9', '%FF', '%ED%A0%80', '%F0%9F%98%80', '?', ' ', '[', ']', '%00', '%EF%BB%BF', '%80']
  let differ = 0
  for (let round = 0; round < 20_000; round++) {
    let text = ''
    for (let n = random.below(12); n > 0; n--) text += random.pick(atoms)
    if (JSON.stringify(await fieldsOf(text)) !== JSON.stringify(asSearchParams(text))) {
      differ += 1
      if (differ <= 3) t.fail(`differs from URLSearchParams: ${JSON.stringify(text)}`)
    }
  }
  t.equal(differ, 0)
})

t.test('raw bytes follow the URL Standard: invalid UTF-8 is replaced before percent-decoding', async (t) => {
  t.same(await fieldsOf(Buffer.from([0x61, 0x3d, 0xc3, 0x25, 0x34, 0x31, 0xff])), [['a', '\uFFFDA\uFFFD']])
  // Raw C3 and a decoded A9 would spell é; the raw byte was replaced first, so they do not.
  t.same(await fieldsOf(Buffer.from([0x61, 0x3d, 0xc3, 0x25, 0x41, 0x39])), [['a', '\uFFFD\uFFFD']], 'a raw byte never joins a decoded one')
  // Node 20's URLSearchParams reads this one as "\uFFFD\uFFFD", against the standard.
  t.same(await fieldsOf('a=%A9é'), [['a', '\uFFFDé']])
})

t.test('a value longer than a slice decodes the same, and the event loop gets turns in between', async (t) => {
  const value = `data:image/png;base64,${Buffer.alloc(3 * 1024 * 1024 + 7, 0xfb).toString('base64')}`
  const text = new URLSearchParams([['event', 'ORDER_COMPLETE'], ['event_payload[pod]', value], ['tail', 'é+x']]).toString()
  let pauses = 0
  const fields = await urlencodedFields(Buffer.from(text), async () => { pauses += 1 })
  t.same(fields, [['event', 'ORDER_COMPLETE'], ['event_payload[pod]', value], ['tail', 'é+x']])
  t.ok(pauses >= 3, `${pauses} turns for ${text.length} bytes`)
  // Every alignment of %XX against the slice edge.
  for (let shift = 0; shift < 3; shift++) {
    const long = `${'a'.repeat(1024 * 1024 - 3 + shift)}${'%2B%C3%A9'.repeat(4)}`
    t.same(await fieldsOf(`x=${long}`), asSearchParams(`x=${long}`), `shifted by ${shift}`)
  }
})

t.test(`${LIMITS.bodyMaxFields} fields pass, one more is refused; empty pieces count`, async (t) => {
  const max = LIMITS.bodyMaxFields
  const refused = `The form has more than ${max} fields; at most ${max} are accepted`
  t.equal(await detailOf(Array.from({ length: max }, (_, i) => `f${i}=x`).join('&')), 'ok')
  t.equal(await detailOf(Array.from({ length: max + 1 }, (_, i) => `f${i}=x`).join('&')), refused)
  t.equal(await detailOf('&'.repeat(max)), refused)
  t.equal(await detailOf(Array.from({ length: 640_000 }, (_, i) => `f${i}=x`).join('&')), refused, 'the 640k-field form')
})

t.test(`names and separators: ${LIMITS.bodyMaxMarkupBytes} bytes pass, more are refused; values do not count`, async (t) => {
  const max = LIMITS.bodyMaxMarkupBytes
  const refused = `The form has more than ${max} bytes of field names and separators; at most ${max} are accepted`
  t.equal(await detailOf(`${'n'.repeat(max - 2)}=v`), 'ok')
  t.equal(await detailOf(`${'n'.repeat(max - 1)}=v`), refused)
  t.equal(await detailOf(`n=${'v'.repeat(LIMITS.bodyMaxBytes - 2)}`), 'ok', 'a 16 MiB value')
})
