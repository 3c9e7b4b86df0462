import { isTimestampShape } from '@waybill/domain'

/**
 * A UTC timestamp as fixed-width text, `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (always nine fraction
 * digits), so that comparing two keys as text compares the instants exactly, to the nanosecond.
 * Event dates carry 0 to 9 fraction digits; epoch milliseconds would merge instants less than a
 * millisecond apart, and epoch nanoseconds do not fit 64 bits over the years 0000-9999 accepted.
 */
export function timestampKey(text: string): string {
  // The shape fixes every width but the fraction's: characters 0-18 are the date and the time,
  // and the fraction, if any, sits between the '.' at 19 and the closing 'Z'.
  if (!isTimestampShape(text)) throw new TypeError(`"${text}" is not a UTC timestamp`)
  const fraction = text.length > 20 ? text.slice(20, -1) : ''
  return `${text.slice(0, 19)}.${fraction.padEnd(9, '0')}Z`
}
