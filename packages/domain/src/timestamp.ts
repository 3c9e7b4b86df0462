/**
 * `YYYY-MM-DDTHH:MM:SS(.fraction)?Z`: upper-case T and Z, 1 to 9 fraction digits, no offset; a
 * pattern string, so the wire schema's timestamps use this very shape. Whether the digits name a
 * real time is `isRealUtcTime`'s to say, so a refusal can tell the two apart.
 */
export const TIMESTAMP_SHAPE = '^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d{1,9})?Z$'
const SHAPE = new RegExp(TIMESTAMP_SHAPE, 'u')

/** Whether `text` has the timestamp shape (`TIMESTAMP_SHAPE`). */
export function isTimestampShape(text: string): boolean {
  return SHAPE.test(text)
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}

/**
 * Whether a timestamp of the right shape names a real UTC instant of the proleptic Gregorian
 * calendar: month 01-12, a day the month has, hour 00-23, minute and second 00-59. A leap second
 * (:60) is refused: JavaScript dates cannot hold one and courier clocks do not send one.
 */
export function isRealUtcTime(text: string): boolean {
  const match = SHAPE.exec(text)
  if (match === null) return false
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  if (month < 1 || month > 12) return false
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number)
  return day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 59
}
