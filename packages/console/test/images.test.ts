import t from 'tap'
import { createHash } from 'node:crypto'
import { checkImage, recordedImages, withImageFailures } from '../web/verify/images.js'
import type { Verdict } from '../web/verify/verdict.js'
import { orderEvent, signedLog, sampleEvents } from './signed-log.js'

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const ref = (bytes: Uint8Array) => ({ sha256: sha(bytes), media_type: 'image/png', bytes: bytes.length })

t.test('each image is checked against the latest event that recorded it', async (t) => {
  const events = [
    orderEvent('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1' }, 0),
    orderEvent('order-acme-A1', 1, 'OrderCompleted', { order_id: 'A1', pod: ref(Uint8Array.of(1)), signature: ref(PNG) }, 1),
    orderEvent('order-acme-A1', 2, 'OrderCompleted', { order_id: 'A1', pod: ref(PNG) }, 2),
  ]
  // The history's order is the server's: the latest is by revision.
  const images = recordedImages([events[2]!, events[0]!, events[1]!])
  t.same(images.map(({ which, revision, sha256 }) => ({ which, revision, sha256 })), [
    { which: 'pod', revision: 2, sha256: sha(PNG) },
    { which: 'signature', revision: 1, sha256: sha(PNG) },
  ])
  t.equal(await checkImage(PNG, images[0]!), null, 'the bytes the event recorded')
  const failure = await checkImage(Uint8Array.of(9, 9), images[0]!)
  t.match(failure, { which: 'pod', revision: 2, reason: /proof-of-delivery image .* has sha256 [0-9a-f]+…, not the [0-9a-f]+… that revision 2 recorded/ })
  const unnamed = recordedImages([orderEvent('order-acme-A1', 0, 'OrderCompleted', { order_id: 'A1', signature: { sha256: 'nope' } }, 0)])
  t.match(await checkImage(PNG, unnamed[0]!), { which: 'signature', revision: 0, reason: /no sha256/ })
  t.same(recordedImages([orderEvent('order-acme-A1', 0, 'OrderAdded', { order_id: 'A1', pod: null }, 0)]), [], 'no image recorded')
})

t.test('an image whose bytes differ turns any verdict red', async (t) => {
  const log = signedLog(sampleEvents())
  const head = log.head(5)
  const failure = { which: 'pod' as const, revision: 2, reason: 'the proof-of-delivery image differs' }
  const verified: Verdict = { kind: 'verified', head, covered: 3 }
  t.equal(withImageFailures(verified, []), verified)
  t.same(withImageFailures(verified, [failure]), { kind: 'failed', head, revision: 2, reason: 'the proof-of-delivery image differs' })
  t.same(withImageFailures(null, [failure]), { kind: 'failed', head: null, revision: 2, reason: 'the proof-of-delivery image differs' }, 'without a signed log too')
  t.match(withImageFailures({ kind: 'partial', head, covered: 2, pending: 1 }, [failure]), { kind: 'failed' })
  const earlier: Verdict = { kind: 'failed', head, revision: 0, reason: 'the event differs from leaf 0 of the log' }
  t.equal(withImageFailures(earlier, [failure]), earlier, 'the first failure stays the one named')
})
