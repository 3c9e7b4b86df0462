import { randomUUID } from 'node:crypto'
import { WrongExpectedVersionError } from '../errors.js'
import type { EventData, EventStore, ExpectedRevision } from '../port.js'

/** What a check gets: the store, fresh stream names in the scratch category, fresh events. */
export interface PreflightContext {
  readonly store: EventStore
  /** Opens another store on the same configuration (the close check closes it). */
  readonly open: () => Promise<EventStore>
  /** The scratch category (no `-`): every stream a check writes is in it. */
  readonly category: string
  /** A stream name no other check or run uses: `<category>-<run>-<n>`. */
  stream(): string
  /** A new event with a fresh id. */
  event(type?: string, data?: Record<string, unknown>): EventData
}

/** One promise of the port, checked against a live store. Throws `CheckFailed` when it does not hold. */
export interface PreflightCheck {
  readonly name: string
  run(context: PreflightContext): Promise<void>
}

/** A check found the store breaking the port's promise; the message says how. */
export class CheckFailed extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CheckFailed'
  }
}

/** Fails the check with `message` unless `condition` holds. */
export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message)
}

/**
 * Deep equality of JSON-like values (bigints included), for comparing what was written with
 * what is read: object keys in any order, as stores may keep them sorted.
 */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys)
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
}

/** Appends one event with `expected` and checks it is refused as the port says, with `actual`. */
export async function expectConflict(context: PreflightContext, stream: string, expected: ExpectedRevision,
  actual: number | 'no_stream', events: readonly EventData[] = [context.event()]): Promise<void> {
  const error = await context.store.appendToStream(stream, events, { expectedRevision: expected }).then(() => null, (caught: unknown) => caught)
  expect(error instanceof WrongExpectedVersionError, `expected revision ${String(expected)} on ${stream} was not refused with WrongExpectedVersionError (${describe(error)})`)
  expect(error.streamName === stream && error.expected === expected && error.actual === actual,
    `the conflict on ${stream} says expected ${String(error.expected)}, actual ${String(error.actual)}; should be ${String(expected)}, ${String(actual)}`)
}

function describe(value: unknown): string {
  return value === null ? 'it was accepted' : value instanceof Error ? `${value.name}: ${value.message}` : JSON.stringify(value)
}

/** The context `runPreflight` and the contract suite hand to every check. */
export function preflightContext(store: EventStore, open: () => Promise<EventStore>, category: string): PreflightContext {
  const run = randomUUID().replaceAll('-', '').slice(0, 12)
  let counter = 0
  return {
    store, open, category,
    stream: () => `${category}-${run}-${++counter}`,
    event: (type = 'Happened', data = { n: counter }) => ({ id: randomUUID(), type, data, metadata: { request_id: randomUUID() } }),
  }
}
