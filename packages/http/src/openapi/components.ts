import type { FastifyInstance } from 'fastify'
import type { TObject, TSchema } from 'typebox'
import { WIRE_EVENTS, type WireEvent } from '@waybill/domain'
import { DELIVERY_REQUEST_SCHEMAS, DeliveryRequestSchema, ProblemSchema } from '@waybill/domain/wire'
import { HistoryEntrySchema, HistorySchema, OrderListSchema, OrderSchema } from '../routes/orders/schemas.js'
import { ref } from './ref.js'

/** Each event's names in the document: OrderAddRequest (its envelope) and OrderAddPayload (its payload), and so on. */
const DELIVERY_NAMES: Readonly<Record<WireEvent, string>> = {
  ORDER_ADD: 'OrderAdd', ORDER_UPDATE: 'OrderUpdate', ORDER_COMPLETE: 'OrderComplete', ORDER_CANCELED: 'OrderCanceled',
}

/**
 * The domain's delivery schemas as the document names them: the union refers to each event's
 * envelope, and each envelope to its payload, by name. The schemas themselves are the domain's,
 * the ones the validator compiles; only the nesting becomes references.
 */
function deliveryComponents(): Record<string, TSchema> {
  const components: Record<string, TSchema> = {
    DeliveryRequest: { ...DeliveryRequestSchema, anyOf: WIRE_EVENTS.map((event) => ref(`${DELIVERY_NAMES[event]}Request`)) },
  }
  for (const event of WIRE_EVENTS) {
    const envelope: TObject = DELIVERY_REQUEST_SCHEMAS[event]
    const name = DELIVERY_NAMES[event]
    components[`${name}Request`] = { ...envelope, properties: { ...envelope.properties, event_payload: ref(`${name}Payload`) } }
    components[`${name}Payload`] = envelope.properties.event_payload as TSchema
  }
  return components
}

/**
 * The schemas the OpenAPI document names in `components.schemas`, so that generated clients name
 * their types. Each is registered on the app under its name; routes refer to one with `ref`.
 */
const COMPONENTS: Readonly<Record<string, TSchema>> = {
  Problem: ProblemSchema,
  ...deliveryComponents(),
  Order: OrderSchema,
  OrderList: OrderListSchema,
  History: HistorySchema,
  HistoryEntry: HistoryEntrySchema,
}

/** Registers every named schema, before the routes that refer to them. */
export function registerComponents(app: FastifyInstance): void {
  for (const [name, schema] of Object.entries(COMPONENTS)) app.addSchema({ ...schema, $id: name })
}
