import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  NotLeaderError,
  StreamDeletedError as ClientStreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError as ClientWrongExpectedVersionError,
} from '@eventstore/db-client'
import { StoreUnavailableError, StreamDeletedError, WrongExpectedVersionError } from '../errors.js'
import type { ExpectedRevision } from '../port.js'
import { fromClientExpectedRevision, fromClientRevision } from './revision.js'

/** Whether reading a stream failed only because the stream does not exist. */
export function isStreamNotFound(error: unknown): boolean {
  return error instanceof StreamNotFoundError
}

/**
 * Why a call failed, in the port's terms. A wrong expected version becomes the port's conflict
 * error carrying the stream's actual revision; anything that says the cluster cannot be reached
 * or did not answer in time becomes `StoreUnavailableError` (nothing was acknowledged, retry
 * later); a tombstoned stream becomes the port's `StreamDeletedError`. Anything else is a bug
 * or a misconfiguration and is passed through unchanged.
 */
export function mapClientError(error: unknown, context: { streamName?: string; expected?: ExpectedRevision } = {}): unknown {
  if (error instanceof ClientWrongExpectedVersionError) {
    return new WrongExpectedVersionError(
      context.streamName ?? error.streamName,
      context.expected ?? fromClientExpectedRevision(error.expectedVersion),
      fromClientRevision(error.actualVersion),
    )
  }
  if (error instanceof ClientStreamDeletedError) {
    const streamName = context.streamName ?? error.streamName
    return new StreamDeletedError(streamName, 'EventStoreDB tombstoned it; its name can never be used again', { cause: error })
  }
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError
    || error instanceof TimeoutError || error instanceof NotLeaderError || error instanceof CancelledError) {
    return new StoreUnavailableError(`EventStoreDB unavailable: ${describe(error)}`, { cause: error })
  }
  if (error instanceof AccessDeniedError) {
    // Surfaced as its own message: the fix is the credentials in the connection string, not a retry.
    return new Error(`EventStoreDB denied access (check the user in EVENTSTORE_CONNECTION_STRING): ${describe(error)}`, { cause: error })
  }
  if (error instanceof Error && /Failed to discover/i.test(error.message)) {
    return new StoreUnavailableError(`EventStoreDB cluster not found: ${error.message}`, { cause: error })
  }
  return error
}

function describe(error: Error): string {
  return error.message === '' ? error.constructor.name : error.message
}
