import t from 'tap'
import { decodeImage, forgetDecodedImages } from '../src/decoded-images.js'
import { dataUrl, PNG } from './wire-samples.js'

t.test('decoded images are remembered briefly, then forgotten', async (t) => {
  const texts = [PNG, Buffer.concat([PNG, Buffer.from([1])]), Buffer.concat([PNG, Buffer.from([2])]),
    Buffer.concat([PNG, Buffer.from([3])]), Buffer.concat([PNG, Buffer.from([4])])].map((bytes) => dataUrl('image/png', bytes))
  const first = decodeImage(texts[0]!)
  t.equal(decodeImage(texts[0]!), first, 'the same text answers the same decoding')
  for (const text of texts) decodeImage(text)
  t.not(decodeImage(texts[0]!), first, 'a few decodings later it is decoded afresh')
  forgetDecodedImages()
  const again = decodeImage(texts[0]!)
  forgetDecodedImages()
  t.not(decodeImage(texts[0]!), again, 'forgotten at the end of a validation')
})
