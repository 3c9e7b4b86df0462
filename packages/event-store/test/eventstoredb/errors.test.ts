import t from 'tap'
import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError as ClientWrongExpectedVersionError,
  convertToCommandError,
} from '@eventstore/db-client'
import { StoreUnavailableError, StreamDeletedError as PortStreamDeletedError, WrongExpectedVersionError } from '../../src/errors.js'
import { isStreamNotFound, mapClientError } from '../../src/eventstoredb/map-error.js'

// What a gRPC failure from the server looks like when it reaches the client: a status code,
// details, and trailing metadata whose `exception` names the EventStoreDB error. The client's
// own convertToCommandError turns it into its error classes, exactly as on a live call.
function serverFailure(code: number, headers: Record<string, string>): Error {
  return Object.assign(new Error(`${code} ${headers.exception ?? ''}`), {
    code,
    details: headers.exception ?? 'failure',
    metadata: { getMap: () => headers },
  })
}

t.test('the client\'s wrong-expected-version becomes the port\'s, with the actual revision', async (t) => {
  const clientError = new ClientWrongExpectedVersionError(undefined, { streamName: 'order-acme-1', expected: 3n, current: 5n })
  const mapped = mapClientError(clientError, { streamName: 'order-acme-1', expected: 3 })
  t.type(mapped, WrongExpectedVersionError)
  const error = mapped as WrongExpectedVersionError
  t.equal(error.streamName, 'order-acme-1')
  t.equal(error.expected, 3)
  t.equal(error.actual, 5)
  t.equal(error.code, 'wrong_expected_version')
})

t.test('a stream that does not exist yet is actual `no_stream`', async (t) => {
  const clientError = new ClientWrongExpectedVersionError(undefined, { streamName: 'order-acme-2', expected: 0n, current: NO_STREAM })
  const mapped = mapClientError(clientError) as WrongExpectedVersionError
  t.type(mapped, WrongExpectedVersionError)
  t.equal(mapped.actual, 'no_stream')
  t.equal(mapped.expected, 0, 'without context the expected revision comes from the client error')
  t.equal(mapped.streamName, 'order-acme-2')
})

t.test('a conflict as the server reports it is decoded and mapped the same way', async (t) => {
  const converted = convertToCommandError(serverFailure(9, {
    exception: 'wrong-expected-version', 'stream-name': 'order-acme-3', 'expected-version': '-1', 'actual-version': '0',
  }))
  t.type(converted, ClientWrongExpectedVersionError)
  const mapped = mapClientError(converted, { streamName: 'order-acme-3', expected: 'no_stream' }) as WrongExpectedVersionError
  t.type(mapped, WrongExpectedVersionError)
  t.equal(mapped.expected, 'no_stream')
  t.equal(mapped.actual, 0)
})

t.test('StreamNotFoundError is recognised (read of a missing stream → empty), others are not', async (t) => {
  t.equal(isStreamNotFound(new StreamNotFoundError(undefined, 'order-acme-9')), true)
  t.equal(isStreamNotFound(convertToCommandError(serverFailure(5, { exception: 'stream-not-found', 'stream-name': 'order-acme-9' }))), true)
  t.equal(isStreamNotFound(new UnavailableError()), false)
  t.equal(isStreamNotFound(new Error('stream not found')), false)
})

t.test('unavailable, deadline, timeout and cancelled become StoreUnavailableError with the cause kept', async (t) => {
  for (const clientError of [
    new UnavailableError(undefined, 'no connection'),
    new DeadlineExceededError(),
    new TimeoutError(),
    new CancelledError(),
    convertToCommandError(serverFailure(14, {})),
    convertToCommandError(serverFailure(4, {})),
  ]) {
    const mapped = mapClientError(clientError)
    t.type(mapped, StoreUnavailableError, clientError.constructor.name)
    t.equal((mapped as StoreUnavailableError).cause, clientError)
    t.match((mapped as Error).message, /^EventStoreDB unavailable: \S/)
  }
})

t.test('a failed cluster discovery is unavailability too', async (t) => {
  const mapped = mapClientError(new Error('Failed to discover after 10 attempts.'))
  t.type(mapped, StoreUnavailableError)
  t.match((mapped as Error).message, /cluster not found/)
})

t.test('access denied says to look at the credentials', async (t) => {
  const mapped = mapClientError(new AccessDeniedError(undefined, 'Access denied'))
  t.type(mapped, Error)
  t.notOk(mapped instanceof StoreUnavailableError, 'not worth retrying')
  t.match((mapped as Error).message, /EVENTSTORE_CONNECTION_STRING/)
})

t.test('a tombstoned stream becomes the port\'s StreamDeletedError, naming the stream', async (t) => {
  const mapped = mapClientError(StreamDeletedError.fromStreamName('order-acme-4'))
  t.type(mapped, PortStreamDeletedError)
  t.equal((mapped as PortStreamDeletedError).streamName, 'order-acme-4')
  t.equal((mapped as PortStreamDeletedError).code, 'stream_deleted')
})

t.test('anything else passes through unchanged', async (t) => {
  const plain = new TypeError('bug')
  t.equal(mapClientError(plain), plain)
  t.equal(mapClientError('odd'), 'odd')
})
