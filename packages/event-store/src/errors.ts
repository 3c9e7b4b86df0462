import type { ExpectedRevision } from './port.js'

/** The stream's revision was not what the append expected: someone else wrote first. */
export class WrongExpectedVersionError extends Error {
  readonly code = 'wrong_expected_version'
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or `no_stream`. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`)
    this.name = 'WrongExpectedVersionError'
  }
}

/**
 * The store cannot take writes or reads right now (disk full, I/O error, cluster unreachable).
 * Nothing was acknowledged; the caller may retry later.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

/**
 * The stream was deleted behind the store's back (an operator's tombstone or soft delete on
 * EventStoreDB). Waybill never deletes a stream, so this is not a retryable outage but data
 * that is gone: reads and appends of that stream refuse rather than start it again elsewhere
 * than revision 0.
 */
export class StreamDeletedError extends Error {
  readonly code = 'stream_deleted'
  constructor(readonly streamName: string, detail: string, options?: { cause?: unknown }) {
    super(`stream ${streamName} was deleted: ${detail}`, options)
    this.name = 'StreamDeletedError'
  }
}
