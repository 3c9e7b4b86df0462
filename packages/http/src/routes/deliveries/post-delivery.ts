import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import {
  deliveryImages, orderDecider, readEventName, SCHEMA_VERSION, streamNameFor, toCommand, WaybillError,
  type DomainErrorCode, type OrderState,
} from '@waybill/domain'
import { DeliveryRequestSchema, problemResponses, validateDelivery } from '@waybill/domain/wire'
import { handleCommand, StreamStates, type StreamStore } from '@waybill/event-store'
import { requireScope, SCOPE_FOR_EVENT } from '@waybill/keys'
import type { BlobStore } from '../../store/blobs.js'

function rejectionDetail(code: DomainErrorCode, orderId: string): string {
  if (code === 'not_found') return `No order ${JSON.stringify(orderId)} exists for this account`
  if (code === 'locked') return `Order ${JSON.stringify(orderId)} is completed or canceled and can no longer be modified`
  return `Order ${JSON.stringify(orderId)} already exists (a different ORDER_ADD was accepted for it)`
}

/** The response header that names the stored event of an accepted delivery (docs/contract.md#delivery-events-endpoint). */
const EVENT_ID_HEADER = 'waybill-event-id'

export interface DeliveriesRouteOptions {
  readonly store: StreamStore
  readonly blobs: BlobStore
}

/**
 * POST /v1/deliveries. Fastify does not validate the body against the schema (the schema is for
 * the OpenAPI document): its validation would answer before the scope check, and docs/contract.md#order-of-checks
 * puts unknown_event and api_key_forbidden before payload validation. The checks run here in
 * that order instead.
 */
export default async function deliveries(app: FastifyInstance, options: DeliveriesRouteOptions): Promise<void> {
  // The orders this instance last wrote, so that the next event of an order (and a new order's
  // first) is decided without reading its stream: the append's expected revision still makes
  // the store the judge (handleCommand), whatever other instances do.
  const states = new StreamStates<OrderState>()
  app.post('/v1/deliveries', {
    validatorCompiler: () => () => true,
    schema: {
      operationId: 'sendDelivery',
      summary: 'Send one delivery event (ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED)',
      description: [
        'Accepts application/json, application/x-www-form-urlencoded (event_payload[field]=…, every value percent-encoded: a `+` in base64 must be sent as %2B)',
        'and multipart/form-data with the same field names. Success answers have an empty body and carry the stored event\'s id in `Waybill-Event-Id`;',
        'an exact retry of an accepted event answers the same status and id. A refused payload lists every wrong field in the problem\'s `errors`, each with a JSON pointer.',
      ].join(' '),
      tags: ['deliveries'],
      security: [{ apiKey: [] }],
      consumes: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      body: DeliveryRequestSchema,
      response: {
        201: Type.Null({ description: 'ORDER_ADD accepted (or an exact retry of it); empty body' }),
        202: Type.Null({ description: 'ORDER_UPDATE, ORDER_COMPLETE or ORDER_CANCELED accepted (or an exact retry); empty body' }),
        ...problemResponses(
          ['no_body', 'unknown_event', 'bad_request', 'not_found', 'locked', 'conflict', 'payload_too_large', 'unsupported_media_type'],
          { keyed: true },
        ),
      },
    },
  }, async (request, reply) => {
    const body: unknown = request.body
    // Fastify skips parsing when a request announces no body at all.
    if (body === undefined) throw new WaybillError('no_body', 'The request body is empty')
    const named = readEventName(body)
    if (!named.ok) throw named.error
    const principal = requireScope(request.principal, SCOPE_FOR_EVENT[named.event])
    const valid = validateDelivery(named.event, named.body)
    if (!valid.ok) throw valid.error

    // Images are durable before the event that refers to them is appended.
    for (const image of deliveryImages(valid.value)) await options.blobs.put(image.bytes, image.sha256)

    const command = toCommand(principal.account, valid.value)
    const result = await handleCommand(options.store, streamNameFor(principal.account, command.data.order_id), orderDecider, command, {
      metadata: {
        received_at: new Date().toISOString(),
        key_id: principal.keyId,
        request_id: request.id,
        schema_version: SCHEMA_VERSION,
      },
    }, states)
    if (result.outcome === 'rejected') throw new WaybillError(result.error, rejectionDetail(result.error, command.data.order_id))
    // The id is deterministic, so an exact retry (already_applied) names the event stored the first time.
    return reply.code(command.type === 'ORDER_ADD' ? 201 : 202).header(EVENT_ID_HEADER, command.eventId).send()
  })
}
