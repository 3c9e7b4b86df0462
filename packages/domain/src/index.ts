/**
 * The rules of an order and of the log, free of any schema library: the decider, events,
 * statuses, accounts, streams, canonical JSON and event ids, limits, the text rules and the words
 * every refusal shares. What every
 * process needs; code that validates no request (the event store and its writer and checkpoint
 * threads, the keys, the projector's fold) loads no TypeBox through it. The wire format's
 * schemas and validator are `@waybill/domain/wire`
 * (packages/cli/test/no-fastify.e2e.test.ts holds both).
 */
export * from './events.js'
export * from './statuses.js'
export * from './accounts.js'
export * from './commands.js'
export * from './decider.js'
export * from './canonical-json.js'
export * from './errors.js'
export * from './order-state.js'
export { evolve } from './evolve.js'
export { decide } from './decide.js'
export * from './order-decider.js'
export { NewerEventError, orderEventReader, schemaVersionOf, upcastOrderEvent, type StoredOrderEvent, type Upcaster } from './upcast.js'
export * from './streams.js'
export * from './uuid-v5.js'
export * from './event-id.js'
export * from './limits.js'
export { isRealUtcTime, isTimestampShape, TIMESTAMP_SHAPE } from './timestamp.js'
export * from './image-data-url.js'
export * from './valid-delivery.js'
export * from './read-event-name.js'
export * from './to-command.js'
export * from './text-rules.js'
export * from './refusal-words.js'
export { WAYBILL_VERSION } from './version.js'
