/**
 * The wire format as TypeBox schemas: the fields every route builds its schemas from, each
 * carrying the words of its refusals; the one validator engine for every part of every request;
 * the delivery request, one schema per event payload that both validates (compiled, with the
 * formats of wire-formats.ts) and documents; the problem body and the error answers of the
 * OpenAPI document; and the request examples. Its own entry point because TypeBox is costly to
 * load (some 700 modules); only the HTTP side needs it.
 */
export * from './problem.js'
export * from './wire-fields.js'
export * from './wire-validator.js'
export * from './validate-delivery.js'
export { IMAGE_FORMAT, TIMESTAMP_FORMAT } from './wire-formats.js'
export * from './delivery-schema.js'
export { problemResponses } from './problem-responses.js'
export { DELIVERY_EXAMPLES } from './delivery-examples.js'
