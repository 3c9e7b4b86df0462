import { createHash } from 'node:crypto'
import t from 'tap'
import { decodeImageDataUrl } from '../src/image-data-url.js'
import { IMAGE_MAX_BASE64_LENGTH, LIMITS } from '../src/limits.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { JPEG, PNG, WEBP, body, dataUrl } from './wire-samples.js'

const detailOf = (field: 'pod' | 'signature', value: unknown) => {
  const result = validateDelivery('ORDER_COMPLETE', body('ORDER_COMPLETE', { [field]: value }))
  return result.ok ? 'ok' : result.error.detail
}
const B64 = JPEG.toString('base64')

t.test('each media type with matching bytes passes, pod and signature alike', async (t) => {
  for (const [type, bytes] of [['image/jpeg', JPEG], ['image/png', PNG], ['image/webp', WEBP]] as const) {
    for (const field of ['pod', 'signature'] as const) t.equal(detailOf(field, dataUrl(type, bytes)), 'ok', `${field} ${type}`)
    const decoded = decodeImageDataUrl(dataUrl(type, bytes))
    t.same(decoded, { ok: true, image: { media_type: type, bytes, sha256: createHash('sha256').update(bytes).digest('hex') } })
  }
})

t.test('scheme, media type and base64 token are case-insensitive; the type is kept lower-case', async (t) => {
  const decoded = decodeImageDataUrl(`DATA:Image/PNG;BASE64,${PNG.toString('base64')}`)
  t.match(decoded, { ok: true, image: { media_type: 'image/png' } })
})

t.test('anything but data:<type>;base64,<data> is refused', async (t) => {
  const NOT_URL = 'event_payload.pod: must be a data URL: data:<media_type>;base64,<data>'
  for (const value of ['', B64, `data:image/jpeg,${B64}`, `data:image/jpeg;charset=x;base64,${B64}`, `data:image/jpeg;base64${B64}`, ` data:image/jpeg;base64,${B64}`, `https://x/y.jpg`]) {
    t.equal(detailOf('pod', value), NOT_URL, value.slice(0, 40))
  }
})

t.test('media types other than jpeg, png and webp are refused', async (t) => {
  for (const type of ['image/gif', 'image/svg+xml', 'text/plain', 'application/octet-stream', 'image/jpg', '', 'image/jpeg ']) {
    t.equal(detailOf('pod', `data:${type};base64,${B64}`), 'event_payload.pod: media type must be one of image/jpeg, image/png, image/webp', type)
  }
})

t.test('base64 must be strict: alphabet, padding, no white space, zero pad bits', async (t) => {
  const STRICT = 'event_payload.pod: data must be strict base64 (RFC 4648)'
  const bad = [
    B64.replace(/.$/, '-'), B64.replaceAll('/', '_'),
    `${B64}=`, B64.replace(/=+$/, ''), `${B64.slice(0, 4)}=${B64.slice(5)}`, `${B64}====`, '/9j/4A==A===',
    '/9j/4B==', // 0xff 0xd8 0xff 0xe0 with non-zero pad bits: decodes the same, is not canonical
  ]
  for (const value of bad) t.equal(detailOf('pod', `data:image/jpeg;base64,${value}`), STRICT, value.slice(-12))
  // Node's decoder skips what it does not know; encoding again shows the difference.
  for (const foreign of ['*', '.', 'é', '\u0000', '\t', '😀'.slice(0, 1)]) {
    t.equal(detailOf('pod', `data:image/jpeg;base64,${B64.slice(0, 8)}${foreign}${B64.slice(9)}`), STRICT, `a ${JSON.stringify(foreign)} in place of one character`)
  }
  t.equal(detailOf('pod', 'data:image/jpeg;base64,/9j/4A=='), 'ok', 'its canonical form passes')
})

t.test('strict base64 refused for a space or a line break says the likely cause', async (t) => {
  const SPACE = "event_payload.pod: data must be strict base64 (RFC 4648); it contains spaces: in a form body a '+' must be sent as %2B (curl --data-urlencode, or send JSON)"
  const BREAK = 'event_payload.pod: data must be strict base64 (RFC 4648); it contains line breaks: send the base64 on one line (base64 -w0)'
  t.equal(detailOf('pod', `data:image/jpeg;base64,${B64.slice(0, 4)} ${B64.slice(4)}`), SPACE, 'a space, as curl -d makes of a +')
  t.equal(detailOf('pod', `data:image/jpeg;base64,${B64.slice(0, 4)} ${B64.slice(5)}`), SPACE, 'a space in place of a +, length kept')
  t.equal(detailOf('pod', `data:image/jpeg;base64,${B64}\n`), BREAK, 'a trailing newline')
  t.equal(detailOf('pod', `data:image/jpeg;base64,${B64.slice(0, 4)}\r\n${B64.slice(4)}`), BREAK, 'wrapped, CRLF')
})

t.test('the bytes must carry the signature of the declared type', async (t) => {
  t.equal(detailOf('pod', dataUrl('image/png', JPEG)), 'event_payload.pod: bytes are not a image/png image')
  t.equal(detailOf('pod', dataUrl('image/jpeg', PNG)), 'event_payload.pod: bytes are not a image/jpeg image')
  t.equal(detailOf('pod', dataUrl('image/webp', Buffer.from('RIFF\0\0\0\0WEBX'))), 'event_payload.pod: bytes are not a image/webp image')
  t.equal(detailOf('pod', dataUrl('image/webp', Buffer.from('RIFX\0\0\0\0WEBP'))), 'event_payload.pod: bytes are not a image/webp image')
  t.equal(detailOf('pod', dataUrl('image/webp', Buffer.from('RIFF\0\0\0\0WEB'))), 'event_payload.pod: bytes are not a image/webp image')
  t.equal(detailOf('pod', dataUrl('image/jpeg', JPEG.subarray(0, 2))), 'event_payload.pod: bytes are not a image/jpeg image')
  t.equal(detailOf('pod', 'data:image/jpeg;base64,'), 'event_payload.pod: bytes are not a image/jpeg image', 'no bytes at all')
  t.equal(detailOf('pod', dataUrl('image/png', PNG.subarray(0, 7))), 'event_payload.pod: bytes are not a image/png image')
})

t.test('5 MiB decoded passes; one byte more is refused, judged before decoding', async (t) => {
  const TOO_LARGE = `event_payload.pod: image must be at most ${LIMITS.imageMaxBytes} bytes`
  const atLimit = Buffer.alloc(LIMITS.imageMaxBytes, 7)
  JPEG.copy(atLimit)
  t.equal(detailOf('pod', dataUrl('image/jpeg', atLimit)), 'ok', 'exactly 5 MiB')
  const overByOne = Buffer.concat([atLimit, Buffer.from([0])])
  t.equal(overByOne.toString('base64').length, IMAGE_MAX_BASE64_LENGTH, 'its base64 is as long as the longest allowed')
  t.equal(detailOf('pod', dataUrl('image/jpeg', overByOne)), TOO_LARGE, '5 MiB + 1 byte')
  t.equal(detailOf('pod', `data:image/jpeg;base64,${'A'.repeat(IMAGE_MAX_BASE64_LENGTH + 4)}`), TOO_LARGE, 'longer base64')
  t.equal(detailOf('pod', `data:image/jpeg;base64,${'*'.repeat(IMAGE_MAX_BASE64_LENGTH + 1)}`), TOO_LARGE, 'size comes before content')
})

t.test('pod is required on completion; signature is optional', async (t) => {
  t.equal(detailOf('pod', undefined), 'event_payload.pod: is required')
  t.equal(detailOf('signature', undefined), 'ok', 'absent')
})

t.test('a blank signature counts as absent, as an empty form field sends it', async (t) => {
  for (const blank of ['', ' ', '  ']) {
    const result = validateDelivery('ORDER_COMPLETE', body('ORDER_COMPLETE', { signature: blank }))
    t.ok(result.ok && result.value.event === 'ORDER_COMPLETE' && !('signature' in result.value.payload), JSON.stringify(blank))
  }
})

t.test('a present signature is validated like pod', async (t) => {
  t.equal(detailOf('signature', null), 'event_payload.signature: must be a string')
  t.equal(detailOf('signature', 7), 'event_payload.signature: must be a string')
  t.equal(detailOf('signature', 'x'), 'event_payload.signature: must be a data URL: data:<media_type>;base64,<data>')
  t.equal(detailOf('signature', dataUrl('image/gif', JPEG)), 'event_payload.signature: media type must be one of image/jpeg, image/png, image/webp')
  t.equal(detailOf('signature', dataUrl('image/webp', PNG)), 'event_payload.signature: bytes are not a image/webp image')
})
