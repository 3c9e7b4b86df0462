import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client'
import type { AppendExpectedRevision, CurrentRevision } from '@eventstore/db-client'
import type { ExpectedRevision } from '../port.js'

/** The port's expected revision in the client's terms; exact revisions become bigints. */
export function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream': return NO_STREAM
    case 'stream_exists': return STREAM_EXISTS
    case 'any': return ANY
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`expected revision must be a non-negative integer, got ${expected}`)
      }
      return BigInt(expected)
  }
}

/** The client's expected revision back in the port's terms (as carried by its conflict error). */
export function fromClientExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  return typeof expected === 'bigint' ? toRevisionNumber(expected) : expected
}

/** The client's revision of a stream (or `no_stream`) in the port's terms. */
export function fromClientRevision(revision: CurrentRevision): number | 'no_stream' {
  return revision === NO_STREAM ? 'no_stream' : toRevisionNumber(revision)
}

/**
 * Revisions are bigints on the wire; the port carries numbers. A stream past 2^53 events is not
 * a thing an order stream can become, so losing precision silently would hide a bug instead.
 */
export function toRevisionNumber(revision: bigint): number {
  if (revision < 0n || revision > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`revision ${revision} is outside the range the port can carry`)
  }
  return Number(revision)
}
