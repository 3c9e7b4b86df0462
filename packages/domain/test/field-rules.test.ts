import t from 'tap'
import { imageRule, objectRule, statusRule, textRule, timestampRule } from '../src/field-rules.js'
import { decodeImage, forgetDecodedImages } from '../src/decoded-images.js'
import { dataUrl, PNG } from './wire-samples.js'

t.test('a rule has no objection to a valid value', async (t) => {
  t.equal(textRule(5)('hello'), null)
  t.equal(timestampRule('2025-01-01T00:00:00Z'), null)
  t.equal(statusRule('pending'), null)
  t.equal(imageRule(dataUrl('image/png', PNG)), null)
  t.equal(objectRule({}), null)
})

t.test('each rule names what is wrong', async (t) => {
  t.equal(textRule(5)('hello!'), 'must be at most 5 characters')
  t.equal(timestampRule(1), 'must be a string')
  t.equal(statusRule(1), 'must be a string')
  t.equal(statusRule('done'), 'must be pending or in_progress')
  t.equal(imageRule(1), 'must be a string')
  t.equal(imageRule('data:image/png;base64,'), 'bytes are not a image/png image')
  for (const value of [[], null, 'x']) t.equal(objectRule(value), 'must be an object')
})

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
