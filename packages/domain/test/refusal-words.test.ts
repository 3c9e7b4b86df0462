import t from 'tap'
import { IS_REQUIRED, mustBeOfType, mustBeOneOf } from '../src/refusal-words.js'

t.test('the shared words', async (t) => {
  t.equal(IS_REQUIRED, 'is required')
  t.equal(mustBeOfType('string'), 'must be a string')
  t.equal(mustBeOfType('object'), 'must be an object')
  t.equal(mustBeOfType('integer'), 'must be an integer')
  t.equal(mustBeOfType(['string', 'null']), 'must be a string or null')
  t.equal(mustBeOneOf(['pending', 'in_progress']), 'must be pending or in_progress')
  t.equal(mustBeOneOf(['a', 'b', 'c']), 'must be one of a, b, c')
})
