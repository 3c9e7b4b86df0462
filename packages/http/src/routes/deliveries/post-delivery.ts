import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify'
import {
  LIMITS, orderDecider, readEventName, SCHEMA_VERSION, streamNameFor, WaybillError,
  type DomainErrorCode, type OrderState, type ValidDelivery, type WireEvent,
} from '@waybill/domain'
import { DeliveryRequestSchema, validateDelivery } from '@waybill/domain/wire'
import { handleCommand, StreamStates, type BlobStore, type StreamStore } from '@waybill/event-store'
import { sealDelivery, type SubjectKeyStore } from '@waybill/personal-data'
import { requirePrincipal, requireScope, SCOPE_FOR_EVENT } from '@waybill/keys'
import { operation } from '../../openapi/operation.js'
import { ref } from '../../openapi/ref.js'
import { accepted, problems } from '../../openapi/responses.js'
import { deliveryExamples } from './examples.js'

function rejectionDetail(code: DomainErrorCode, orderId: string): string {
  switch (code) {
    case 'not_found':
      return `No order ${JSON.stringify(orderId)} exists for this account`
    case 'locked':
      return `Order ${JSON.stringify(orderId)} is completed or canceled and can no longer be modified`
    case 'too_many_events':
      return `Order ${JSON.stringify(orderId)} holds ${LIMITS.orderEventsMax - 1} events, the most before the one that closes it: it can only be completed or canceled`
    case 'conflict':
      return `Order ${JSON.stringify(orderId)} already exists (a different ORDER_ADD was accepted for it)`
  }
}

/** The response header that names the stored event of an accepted delivery (docs/contract.md#delivery-events-endpoint). */
const EVENT_ID_HEADER = 'waybill-event-id'

export interface DeliveriesRouteOptions {
  readonly store: StreamStore
  readonly blobs: Pick<BlobStore, 'put'>
  /** The keys that seal each order's personal fields (docs/design.md#personal-data). */
  readonly keys: Pick<SubjectKeyStore, 'get' | 'create'>
}

/** An erased order takes no event (`locked`), and its id no new ORDER_ADD (`conflict`). */
function erasedRefusal(event: WireEvent, orderId: string): WaybillError {
  return event === 'ORDER_ADD'
    ? new WaybillError('conflict', `Order ${JSON.stringify(orderId)} already exists (its personal data was erased)`)
    : new WaybillError('locked', `Order ${JSON.stringify(orderId)}'s personal data was erased; it can no longer be modified`)
}

/**
 * The checks between parsing and validation, in the contract's order
 * (docs/contract.md#order-of-checks): a body at all (no_body), an event name the service knows
 * (unknown_event), then the key's scope for that event (api_key_forbidden).
 */
const eventAndScope: preValidationHookHandler = (request, _reply, done) => {
  try {
    const body: unknown = request.body
    // Fastify skips parsing when a request announces no body at all.
    if (body === undefined) throw new WaybillError('no_body', 'The request body is empty')
    const named = readEventName(body)
    if (!named.ok) throw named.error
    requireScope(request.principal, SCOPE_FOR_EVENT[named.event])
    done()
  } catch (error) {
    done(error as Error)
  }
}

/**
 * The delivery body's validator: the schema of the event the body names (one compiled TypeBox
 * schema per event, `validateDelivery`), not the union the document shows, so a refusal names
 * the fields of that event. It runs after `eventAndScope`, so the body is an object whose own
 * `event` is one of the four. It hands the route the valid delivery, images decoded.
 */
function deliveryValidator() {
  return (body: Record<string, unknown> & { readonly event: WireEvent }) => {
    const valid = validateDelivery(body.event, body)
    return valid.ok ? { value: valid.value } : { error: valid.error }
  }
}

/** The body types a delivery may come in (docs/contract.md#body-content-types), each read into the same shape. */
const BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const
const body = ref<typeof DeliveryRequestSchema>('DeliveryRequest')

/** POST /v1/deliveries: one delivery event, decided on the order's stream and appended. */
export default async function deliveries(app: FastifyInstance, options: DeliveriesRouteOptions): Promise<void> {
  // The orders this instance last wrote, so that the next event of an order (and a new order's
  // first) is decided without reading its stream: the append's expected revision still makes
  // the store the judge (handleCommand), whatever other instances do.
  const states = new StreamStates<OrderState>()
  app.post('/v1/deliveries', {
    preValidation: eventAndScope,
    validatorCompiler: deliveryValidator,
    schema: operation({
      id: 'sendDelivery', tags: ['deliveries'], keyed: true,
      summary: 'Send one delivery event (ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED)',
      description: [
        'Accepts application/json, application/x-www-form-urlencoded (event_payload[field]=…, every value percent-encoded: a `+` in base64 must be sent as %2B)',
        'and multipart/form-data with the same field names. Success answers have an empty body and carry the stored event\'s id in `Waybill-Event-Id`;',
        'an exact retry of an accepted event answers the same status and id. A refused payload lists every wrong field in the problem\'s `errors`, each with a JSON pointer.',
      ].join(' '),
    }, {
      body: { content: Object.fromEntries(BODY_TYPES.map((type) => [type, { schema: body }])) },
      // One example per event, in the order "Try it out" accepts them (openapi/request-media.ts).
      'x-request-examples': deliveryExamples(),
      response: {
        201: accepted('ORDER_ADD accepted (or an exact retry of it); empty body'),
        202: accepted('ORDER_UPDATE, ORDER_COMPLETE or ORDER_CANCELED accepted (or an exact retry); empty body'),
        ...problems(
          ['no_body', 'unknown_event', 'bad_request', 'not_found', 'locked', 'conflict', 'too_many_events', 'payload_too_large', 'unsupported_media_type'],
          { keyed: true },
        ),
      },
    }),
  }, async (request, reply) => {
    const principal = requirePrincipal(request.principal)
    const valid = (request as FastifyRequest & { body: ValidDelivery }).body
    const orderId = valid.payload.order_id
    const stream = streamNameFor(principal.account, orderId)

    // The order's key is made with its first delivery, durable before anything it seals is
    // stored. Without one, the order does not exist, or was erased: nothing to seal or decide.
    const sealed = await sealDelivery(options.keys, principal.account, valid)
    if (!sealed.ok) {
      throw sealed.refusal === 'erased' ? erasedRefusal(valid.event, orderId) : new WaybillError('not_found', rejectionDetail('not_found', orderId))
    }
    const { command } = sealed

    // Images are durable before the event that refers to them is appended.
    for (const blob of sealed.blobs) await options.blobs.put(blob.bytes, blob.sha256)

    const result = await handleCommand(options.store, stream, orderDecider, command, {
      // Keys in canonical order: the writer hashes and stores it through canonicalJson.
      metadata: {
        key_id: principal.keyId,
        received_at: new Date().toISOString(),
        request_id: request.id,
        schema_version: SCHEMA_VERSION,
      },
    }, states)
    if (result.outcome === 'rejected') throw new WaybillError(result.error, rejectionDetail(result.error, orderId))
    // The id is deterministic, so an exact retry (already_applied) names the event stored the first time.
    return reply.code(command.type === 'ORDER_ADD' ? 201 : 202).header(EVENT_ID_HEADER, command.eventId).send()
  })
}
