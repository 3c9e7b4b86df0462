import t from 'tap'
import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client'
import {
  fromClientExpectedRevision,
  fromClientRevision,
  toClientExpectedRevision,
  toRevisionNumber,
} from '../../src/eventstoredb/revision.js'

t.test('the port\'s expected revisions become the client\'s', async (t) => {
  t.equal(toClientExpectedRevision('no_stream'), NO_STREAM)
  t.equal(toClientExpectedRevision('stream_exists'), STREAM_EXISTS)
  t.equal(toClientExpectedRevision('any'), ANY)
  t.equal(toClientExpectedRevision(0), 0n)
  t.equal(toClientExpectedRevision(41), 41n)
})

t.test('an exact revision that is not a non-negative integer is refused before any call', async (t) => {
  t.throws(() => toClientExpectedRevision(-1), RangeError)
  t.throws(() => toClientExpectedRevision(1.5), RangeError)
  t.throws(() => toClientExpectedRevision(Number.NaN), RangeError)
})

t.test('the client\'s expected and current revisions come back in the port\'s terms', async (t) => {
  t.equal(fromClientExpectedRevision(7n), 7)
  t.equal(fromClientExpectedRevision(NO_STREAM), 'no_stream')
  t.equal(fromClientExpectedRevision(STREAM_EXISTS), 'stream_exists')
  t.equal(fromClientExpectedRevision(ANY), 'any')
  t.equal(fromClientRevision(NO_STREAM), 'no_stream')
  t.equal(fromClientRevision(12n), 12)
})

t.test('a revision the port cannot carry exactly is an error, not a rounded number', async (t) => {
  t.equal(toRevisionNumber(BigInt(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER)
  t.throws(() => toRevisionNumber(BigInt(Number.MAX_SAFE_INTEGER) + 1n), RangeError)
  t.throws(() => toRevisionNumber(-1n), RangeError)
})
