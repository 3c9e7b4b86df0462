import { randomBytes } from 'node:crypto'
import t from 'tap'
import { OpeningThreads, type SealedItem } from '../src/index.js'
import { openJson, sealJson, type OrderKey } from '../src/seal.js'

const key = (n: number): OrderKey => ({ id: `k-${n}-${randomBytes(4).toString('hex')}`, secret: randomBytes(32) })
const keys = Array.from({ length: 5 }, (_, n) => key(n))
/** Parts of five orders, two or three each, interleaved as a log interleaves them. */
const items: SealedItem[] = Array.from({ length: 13 }, (_, i) => {
  const owner = keys[i % keys.length] as OrderKey
  const context = `order-acme-A-${i % keys.length}\n${i < 5 ? 'OrderAdded' : 'OrderUpdated'}`
  const value = { address: `${i} Main St\n"quoted" \u2028`, customer: i < 5 ? `Ada ${i}` : undefined }
  return { key: owner, context, sealed: sealJson(owner, context, value) }
})

t.test('the threads answer each part\'s text in the order asked, as openJson opens it, however the batch is split', async (t) => {
  for (const threads of [1, 2, 3]) {
    const opening = new OpeningThreads(threads)
    t.teardown(() => opening.close())
    const texts = await opening.open(items)
    t.equal(texts.length, items.length)
    t.same(texts.map((text) => JSON.parse(text as string) as unknown), items.map((item) => openJson(item.key, item.context, item.sealed)), `${threads} thread(s)`)
    t.same(await opening.open(items.slice(3, 5)), texts.slice(3, 5), 'a later batch, with keys held from the first')
    t.same(await opening.open([]), [])
  }
})

t.test('a part that does not open is answered null, and the others still open', async (t) => {
  const opening = new OpeningThreads(2)
  t.teardown(() => opening.close())
  const [a, b, c, d] = items as [SealedItem, SealedItem, SealedItem, SealedItem]
  const flipped = Buffer.from(b.sealed.box, 'base64url')
  flipped[0] = (flipped[0] as number) ^ 1
  const texts = await opening.open([
    a,
    { ...b, sealed: { ...b.sealed, box: flipped.toString('base64url') } },
    { ...c, context: `${c.context}x` },
    { ...d, key: { id: d.key.id, secret: randomBytes(32) } },
    { ...a, sealed: { ...a.sealed, iv: 'short' } },
  ])
  t.same(texts.map((text) => text === null ? null : JSON.parse(text) as unknown), [openJson(a.key, a.context, a.sealed), null, null, null, null],
    'a changed byte, another context, another secret under its id, a nonce of the wrong length')
})

t.test('once closed, opening is refused', async (t) => {
  const opening = new OpeningThreads(1)
  await opening.close()
  await t.rejects(opening.open(items), /the opening threads are closed/)
  await opening.close()
})
