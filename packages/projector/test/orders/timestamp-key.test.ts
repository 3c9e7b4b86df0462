import t from 'tap'
import { timestampKey } from '../../src/orders/timestamp-key.js'

t.test('every precision becomes the same fixed width: nine fraction digits', async (t) => {
  t.equal(timestampKey('2025-03-01T10:00:00Z'), '2025-03-01T10:00:00.000000000Z')
  t.equal(timestampKey('2025-03-01T10:00:00.5Z'), '2025-03-01T10:00:00.500000000Z')
  t.equal(timestampKey('2025-03-01T10:00:00.0005Z'), '2025-03-01T10:00:00.000500000Z')
  t.equal(timestampKey('2025-03-01T10:00:00.123456789Z'), '2025-03-01T10:00:00.123456789Z')
  t.equal(timestampKey('2025-03-01T10:00:00.000Z'), timestampKey('2025-03-01T10:00:00Z'), 'one instant, one key')
})

t.test('keys sort as the instants do, to the nanosecond, over years 0000 to 9999', async (t) => {
  const inOrder = [
    '0000-01-01T00:00:00Z', '0999-12-31T23:59:59.999999999Z', '1969-12-31T23:59:59.9Z', '1970-01-01T00:00:00Z',
    '2030-01-01T00:00:00.0005Z', '2030-01-01T00:00:00.000500001Z', '2030-01-01T00:00:00.0009Z',
    '2030-01-01T00:00:00.001Z', '2030-01-01T00:00:00.0011Z', '2030-01-01T00:00:00.1Z', '2030-01-01T00:00:01Z',
    '9999-12-31T23:59:59.999999999Z',
  ]
  const keys = inOrder.map(timestampKey)
  t.same([...keys].sort(), keys)
  t.ok(keys.every((key) => key.length === 30))
})

t.test('a text that is not a UTC timestamp has no key', async (t) => {
  for (const text of ['', 'yesterday', '2025-03-01T10:00:00+01:00', '2025-03-01 10:00:00Z', '2025-03-01T10:00:00.1234567890Z']) {
    t.throws(() => timestampKey(text), TypeError, text)
  }
})
