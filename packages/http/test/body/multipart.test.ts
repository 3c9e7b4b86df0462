import t from 'tap'
import { LIMITS, WaybillError } from '@waybill/domain'
import { multipartFields } from '../../src/body/multipart.js'
import { seededRandom } from '../seeded-random.js'

const BOUNDARY = 'WaybillBoundary0123456789abcdef'
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`

function part(name: string, value: string | Buffer, headers = ''): Buffer {
  return Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}Content-Disposition: form-data; name="${name}"\r\n\r\n`), Buffer.from(value), Buffer.from('\r\n')])
}
const body = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)])

/** What our parser answers: the fields, 'file', or the detail of its bad_request. */
function ours(input: Buffer, contentType = CONTENT_TYPE): Array<[string, string]> | string {
  try {
    return multipartFields(input, contentType)
  } catch (error) {
    if (!(error instanceof WaybillError) || error.code !== 'bad_request') throw error
    return /is a file/.test(error.detail ?? '') ? 'file' : error.detail ?? ''
  }
}

/** What the platform's Response.formData() answers, in the same terms. */
async function platform(input: Buffer, contentType = CONTENT_TYPE): Promise<Array<[string, string]> | string> {
  try {
    // The platform's parser is the reference here, not a way to read a body in a server.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
    const entries = [...(await new Response(input, { headers: { 'content-type': contentType } }).formData()).entries()]
    const fields: Array<[string, string]> = []
    for (const [name, value] of entries) {
      if (typeof value !== 'string') return 'file'
      fields.push([name, value])
    }
    return fields
  } catch {
    return 'The multipart body cannot be parsed'
  }
}

t.test('text parts come out as Response.formData() reads them', async (t) => {
  const samples: Array<[string, Buffer, string?]> = [
    ['two parts', body(part('event', 'ORDER_ADD'), part('event_payload[order_id]', 'A-1'))],
    ['no part', body()],
    ['CRLFs around', Buffer.concat([Buffer.from('\r\n\r\n'), body(part('a', 'b')), Buffer.from('\r\n')])],
    ['no final CRLF', Buffer.concat([part('a', 'b'), Buffer.from(`--${BOUNDARY}--`)])],
    ['quoted boundary', body(part('a', 'b')), `multipart/form-data; boundary="${BOUNDARY}"`],
    ['boundary param in upper case', body(part('a', 'b')), `Multipart/Form-Data; Boundary=${BOUNDARY}`],
    ['escaped names', body(part('a%22b%0Ac%0dd', 'v'))],
    ['BOMs', body(part('\uFEFFn', '\uFEFF\uFEFF\uFEFFv'))],
    ['invalid UTF-8', body(part('n', Buffer.from([0x61, 0xff, 0xc3, 0x28])))],
    ['content type of a text part is not read', body(part('n', 'v', 'Content-Type: text/plain; charset=latin1\r\n'))],
    ['base64 transfer encoding', body(part('n', 'aGVsbG8=', 'Content-Transfer-Encoding: base64\r\n'))],
    ['lower-case header name', Buffer.concat([Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="a"\r\n\r\nv\r\n`), Buffer.from(`--${BOUNDARY}--`)])],
    ['content with CRLF and dashes', body(part('n', 'a\r\n--b\r\n--'))],
    ['empty content', body(part('n', ''))],
    ['file part', body(part('a', 'b'), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="p"; filename="p.png"\r\n\r\nxx\r\n`))],
    ['no boundary', body(part('a', 'b')), 'multipart/form-data'],
    ['other boundary', body(part('a', 'b')), 'multipart/form-data; boundary=AnotherBoundary0123456789abcd'],
    ['no name', Buffer.from(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nv\r\n--${BOUNDARY}--`)],
    ['no headers', Buffer.from(`--${BOUNDARY}\r\n\r\nv\r\n--${BOUNDARY}--`)],
    ['bad header name', body(part('a', 'b', 'Bad Header: 1\r\n'))],
    ['disposition not form-data', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: attachment; name="a"\r\n\r\nv\r\n--${BOUNDARY}--`)],
    ['more after the name', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"; x=y\r\n\r\nv\r\n--${BOUNDARY}--`)],
    ['unclosed', part('a', 'b')],
    ['epilogue', Buffer.concat([body(part('a', 'b')), Buffer.from('trailing')])],
    ['preamble', Buffer.concat([Buffer.from('preamble\r\n'), body(part('a', 'b'))])],
  ]
  for (const [label, input, contentType] of samples) t.same(ours(input, contentType), await platform(input, contentType), label)
})

t.test('random bodies read the same as with Response.formData(), when no content holds its boundary', async (t) => {
  const random = seededRandom(11)
  const names = ['x', 'event', 'event_payload[pod]', 'a%22b', 'a%0Ab', '\uFEFFn', 'é', '']
  const values = ['', 'v', 'é', '\uFEFFv', '--', 'a\r\nb', 'YWJj', '\r\n--', 'Waybill', '\r\n']
  const raw = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80])]
  let differ = 0
  for (let round = 0; round < 3000; round++) {
    const parts: Buffer[] = []
    for (let n = random.below(4); n > 0; n--) {
      let headers = ''
      if (random.next() < 0.2) headers += 'Content-Type: text/plain\r\n'
      if (random.next() < 0.1) headers += 'Content-Transfer-Encoding: base64\r\n'
      if (random.next() < 0.05) headers += 'X-Bad Header: 1\r\n'
      let value = Buffer.from(random.pick(values))
      if (random.next() < 0.1) value = Buffer.concat([value, random.pick(raw)])
      parts.push(part(random.pick(names), value, headers))
    }
    let input = Buffer.concat([Buffer.from(random.next() < 0.1 ? '\r\n' : ''), ...parts, Buffer.from(`--${BOUNDARY}--${random.next() < 0.3 ? '\r\n' : ''}`)])
    if (random.next() < 0.05) input = input.subarray(0, random.below(input.length))
    if (JSON.stringify(ours(input)) !== JSON.stringify(await platform(input))) {
      differ += 1
      if (differ <= 3) t.fail(`differs from formData(): ${JSON.stringify(input.toString('latin1'))}`)
    }
  }
  t.equal(differ, 0)
})

t.test('a part ends at CRLF --boundary (RFC 2046), even where undici stops at the boundary text', async (t) => {
  const input = body(part('n', `see ${BOUNDARY}`))
  t.same(ours(input), [['n', `see ${BOUNDARY}`]])
  t.equal(await platform(input), 'The multipart body cannot be parsed', 'undici takes the first boundary text for the delimiter')
})

t.test('a file part is refused, naming it, once the whole body is read', async (t) => {
  const file = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="event_payload[pod]"; filename="pod.png"\r\nContent-Type: image/png\r\n\r\nxxxx\r\n`)
  const refused = () => multipartFields(body(part('event', 'ORDER_ADD'), file), CONTENT_TYPE)
  t.throws(refused, { code: 'bad_request', detail: 'Multipart part "event_payload[pod]" is a file; send images as Data URLs in text fields' })
  t.equal(ours(Buffer.concat([file, Buffer.from(`--${BOUNDARY}\r\nbroken`)])), 'The multipart body cannot be parsed')
})

t.test(`${LIMITS.bodyMaxFields} parts pass, one more is refused`, async (t) => {
  const max = LIMITS.bodyMaxFields
  const parts = (n: number) => body(...Array.from({ length: n }, (_, i) => part(`f${i}`, 'x')))
  const refused = `The multipart body has more than ${max} parts; at most ${max} are accepted`
  t.equal(ours(parts(max)).length, max)
  t.equal(ours(parts(max + 1)), refused)
})

t.test(`boundaries and headers: ${LIMITS.bodyMaxMarkupBytes} bytes in all; contents do not count`, async (t) => {
  const max = LIMITS.bodyMaxMarkupBytes
  const refused = `The multipart body has more than ${max} bytes of boundaries and part headers; at most ${max} are accepted`
  t.equal(ours(body(part('n', 'v', `X-Filler: ${'f'.repeat(max)}\r\n`))), refused)
  t.equal(ours(body(part('n', 'v', 'X-A: b\r\n'.repeat(LIMITS.bodyMaxBytes / 8 - 16)))), refused, 'the 16 MiB header block')
  t.equal(ours(Buffer.concat([Buffer.from('\r\n'.repeat(max)), body(part('n', 'v'))])), refused, 'CRLFs before the first boundary count')
  const big = 'v'.repeat(LIMITS.bodyMaxBytes - 1024)
  t.same(ours(body(part('n', big))), [['n', big]], 'a 16 MiB part')
})
