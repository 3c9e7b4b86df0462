import t from 'tap'
import { codePointsOver, textRefusal, textRules } from '../src/text-rules.js'

t.test('text that keeps every rule has no refusal', async (t) => {
  t.equal(textRefusal('hello', 5), null)
  t.equal(textRefusal('😀'.repeat(5), 5), null, 'five code points in ten UTF-16 units')
  t.equal(textRefusal('  Zoë\u00a0Ørsted  ', 20), null, 'spaces around and non-ASCII letters are kept')
})

t.test('each rule names what is wrong, the first that fails first', async (t) => {
  t.equal(textRefusal(1, 5), 'must be a string')
  t.equal(textRefusal(null, 5), 'must be a string')
  t.equal(textRefusal('hello!', 5), 'must be at most 5 characters')
  t.equal(textRefusal(' \u3000 ', 5), 'must not be empty')
  t.equal(textRefusal(' '.repeat(9), 5), 'must not be empty', 'blank before too long')
  t.equal(textRefusal('a\u0085b', 5), 'must not contain control characters')
  t.equal(textRefusal('a\u0000'.repeat(9), 5), 'must be at most 5 characters', 'too long before control characters')
  t.equal(textRefusal('a\ud800', 5), 'must be well-formed Unicode (no lone surrogate)')
  t.equal(textRefusal('\u0001\ud800', 5), 'must not contain control characters', 'control characters before a lone surrogate')
})

t.test('the rules are plain JSON Schema, one keyword and its words each', async (t) => {
  const rules = textRules(7)
  t.same(rules.map((rule) => Object.keys(rule).sort()), [['pattern', 'x-error-message'], ['maxLength', 'x-error-message'], ['not', 'x-error-message'], ['not', 'x-error-message']])
  t.equal(rules[1]?.maxLength, 7)
  t.equal(textRules()[1]?.maxLength, 1024, 'the string limit by default')
  t.not(textRules(7)[0], rules[0], 'each call makes its own objects, so no two schemas share one')
})

t.test('lengths are counted in code points, without counting when the UTF-16 length decides', async (t) => {
  t.notOk(codePointsOver('abc', 3))
  t.ok(codePointsOver('abcd', 3))
  t.notOk(codePointsOver('😀😀😀', 3), 'three emoji are three code points, six UTF-16 units')
  t.ok(codePointsOver('😀😀a😀', 3))
  t.ok(codePointsOver('abcdefg', 3), 'more than twice the limit in UTF-16 units')
})
