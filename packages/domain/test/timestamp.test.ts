import t from 'tap'
import { isRealUtcTime, isTimestampShape } from '../src/timestamp.js'
import { validateDelivery } from '../src/validate-delivery.js'
import { body } from './wire-samples.js'

const detailOf = (field: 'event_date' | 'delivery_date', value: string) => {
  const input = field === 'event_date' ? body('ORDER_ADD', {}, { event_date: value }) : body('ORDER_ADD', { delivery_date: value })
  const result = validateDelivery('ORDER_ADD', input)
  return result.ok ? 'ok' : result.error.detail
}
const SHAPE = /: must be YYYY-MM-DDTHH:MM:SSZ in UTC/
const NOT_REAL = /: is not a real calendar time$/

t.test('the accepted shape: Z, with or without 1 to 9 fraction digits', async (t) => {
  for (const value of ['2025-01-31T23:59:59Z', '2025-01-31T23:59:59.5Z', '2025-01-31T00:00:00.123456789Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) {
    for (const field of ['event_date', 'delivery_date'] as const) t.equal(detailOf(field, value), 'ok', `${field} ${value}`)
  }
})

t.test('other shapes are refused, offsets included', async (t) => {
  const values = [
    '2025-01-31T23:59:59+00:00', '2025-01-31T23:59:59+01:00', '2025-01-31T23:59:59-0500', '2025-01-31T23:59:59',
    '2025-01-31 23:59:59Z', '2025-01-31t23:59:59Z', '2025-01-31T23:59:59z', '2025-01-31T23:59Z', '2025-1-31T23:59:59Z',
    '25-01-31T23:59:59Z', '2025-01-31T23:59:59.Z', '2025-01-31T23:59:59.1234567890Z', '2025-01-31T23:59:59,5Z',
    ' 2025-01-31T23:59:59Z', '2025-01-31T23:59:59Z\n', '+02025-01-31T23:59:59Z', '２０２５-01-31T23:59:59Z', '',
  ]
  for (const value of values) {
    t.match(detailOf('event_date', value), SHAPE, JSON.stringify(value))
    t.match(detailOf('delivery_date', value), /^event_payload\.delivery_date: must be YYYY/)
  }
})

t.test('February 29 exists in leap years only (Gregorian rule)', async (t) => {
  for (const year of ['2024', '2000', '1600', '0000']) t.equal(detailOf('event_date', `${year}-02-29T12:00:00Z`), 'ok', year)
  for (const year of ['2025', '1900', '2100', '2023']) t.match(detailOf('event_date', `${year}-02-29T12:00:00Z`), NOT_REAL, year)
  t.match(detailOf('delivery_date', '2024-02-30T12:00:00Z'), /^event_payload\.delivery_date: is not a real calendar time$/)
})

t.test('days past the end of the month, month 00/13, day 00 are refused', async (t) => {
  for (const value of ['2025-04-31T00:00:00Z', '2025-06-31T00:00:00Z', '2025-09-31T00:00:00Z', '2025-11-31T00:00:00Z', '2025-01-32T00:00:00Z', '2025-00-10T00:00:00Z', '2025-13-10T00:00:00Z', '2025-01-00T00:00:00Z']) {
    t.match(detailOf('event_date', value), NOT_REAL, value)
  }
  for (const value of ['2025-01-31T00:00:00Z', '2025-04-30T00:00:00Z', '2025-12-31T00:00:00Z']) t.equal(detailOf('event_date', value), 'ok')
})

t.test('hour 24, minute 60 and second 60 are refused; 23:59:59 is the last second', async (t) => {
  for (const value of ['2025-01-01T24:00:00Z', '2025-01-01T23:60:00Z', '2025-12-31T23:59:60Z', '2025-01-01T99:00:00Z']) {
    t.match(detailOf('event_date', value), NOT_REAL, value)
  }
  t.equal(detailOf('event_date', '2025-01-01T23:59:59.999999999Z'), 'ok')
})

t.test('the shape and calendar predicates agree with Date on every day of a leap and a common year', async (t) => {
  for (const year of [2023, 2024]) {
    for (let month = 1; month <= 12; month++) {
      for (let day = 1; day <= 31; day++) {
        const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00Z`
        const date = new Date(Date.UTC(year, month - 1, day))
        t.equal(isRealUtcTime(text), date.getUTCDate() === day, text)
      }
    }
  }
  t.notOk(isRealUtcTime('not a time'))
  t.ok(isTimestampShape('2025-02-30T00:00:00Z'), 'shape alone does not know the calendar')
})
