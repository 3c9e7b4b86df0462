import type { TSchema } from 'typebox'
import { IMAGE_MEDIA_TYPES, type ErrorCode } from '@waybill/domain'
import { ProblemSchema, problemResponses } from '@waybill/domain/wire'
import { ref } from './ref.js'

/*
 * Each route's answers as the OpenAPI document shows them, declared in the route's own response
 * schema: the media type of the body and the headers that come with it. @fastify/swagger writes
 * them into the document as they are, and Fastify serializes JSON bodies with the same schemas.
 */

const REQUEST_ID = {
  'X-Request-Id': {
    type: 'string',
    description: 'The request id: the one the request sent (1 to 128 of A-Z a-z 0-9 . _ : -) or a fresh UUID; also the problem body\'s request_id',
  },
} as const
const RETRY_AFTER = { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before sending the same request again' } } as const
const RATE_LIMIT = {
  'X-RateLimit-Limit': { type: 'integer', minimum: 1, description: 'Requests the key (or, without one, the client address) may make per window; on every answer after the key check' },
  'X-RateLimit-Remaining': { type: 'integer', minimum: 0, description: 'Requests left in the current window' },
  'X-RateLimit-Reset': { type: 'integer', minimum: 0, description: 'Seconds until the window starts again' },
} as const
const EVENT_ID = {
  'Waybill-Event-Id': {
    type: 'string', format: 'uuid',
    description: 'The id of the stored event (UUID v5, deterministic: an exact retry answers the same id); the `event_id` of its entry in GET /v1/orders/{order_id}/events',
  },
} as const

/** Whether a route's successful answers carry the rate limiter's headers (every route but the probes and the error catalogue). */
export interface Limited {
  readonly rateLimited: boolean
}

function successHeaders(options: Limited) {
  return options.rateLimited ? { ...REQUEST_ID, ...RATE_LIMIT } : REQUEST_ID
}

/** A 200 with a JSON body of `schema`. */
export function json<Schema extends TSchema>(schema: Schema, description: string, options: Limited) {
  return {
    description,
    headers: successHeaders(options),
    content: { 'application/json': { schema } },
  }
}

/** A 201/202 of an accepted delivery: no body; the stored event's id in a header. */
export function accepted(description: string) {
  return { type: 'null', description, headers: { ...successHeaders({ rateLimited: true }), ...EVENT_ID } } as const
}

/** A 200 whose body is an image in the media type it was sent in. */
export function image(description: string) {
  const bytes = { schema: { type: 'string', contentMediaType: 'image/*', format: 'binary' } }
  return {
    description,
    headers: successHeaders({ rateLimited: true }),
    content: Object.fromEntries(IMAGE_MEDIA_TYPES.map((type) => [type, bytes])),
  }
}

/**
 * The error answers of a route: the problem body (`application/problem+json`) for each status it
 * may answer, whose description lists the codes (`problemResponses`, from the error catalogue),
 * with Retry-After on 429 and 503.
 */
export function problems(codes: readonly ErrorCode[], options: { readonly keyed: boolean }) {
  const schema = ref<typeof ProblemSchema>('Problem')
  const answers: Record<number, { description: string; headers: object; content: { 'application/problem+json': { schema: typeof schema } } }> = {}
  for (const [status, { description }] of Object.entries(problemResponses(codes, options))) {
    answers[Number(status)] = {
      description,
      headers: status === '429' || status === '503' ? { ...REQUEST_ID, ...RETRY_AFTER } : REQUEST_ID,
      content: { 'application/problem+json': { schema } },
    }
  }
  return answers
}
