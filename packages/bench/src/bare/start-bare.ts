import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Fastify from 'fastify'
import { loadTlsMaterial, TLS_DEFAULTS } from '@waybill/http'

/** The one key the bare ceiling accepts; written to `<data dir>/test-api-key` as the service's sandbox key is. */
export const BARE_KEY = 'wb_test_barebarebare0000000000000000000000000000000000000000'

const TEXT = { type: 'string', maxLength: 1024 } as const
const DATE_TIME = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' } as const

/**
 * The delivery envelope as one JSON schema, the whole of the bare ceiling's validation: the
 * `event` enum, the `event_date` pattern, the payload fields as strings of at most 1,024
 * characters, the `status` enum; ORDER_ADD needs its six fields. The mix's update and completion
 * pass through the same schema, so every phase of the bench is answered.
 */
const ENVELOPE = {
  type: 'object',
  required: ['event', 'event_date', 'event_payload'],
  properties: {
    event: { type: 'string', enum: ['ORDER_ADD', 'ORDER_UPDATE', 'ORDER_COMPLETE', 'ORDER_CANCEL'] },
    event_date: DATE_TIME,
    event_payload: {
      type: 'object',
      required: ['order_id'],
      properties: {
        order_id: TEXT, customer: TEXT, location: TEXT, address: TEXT, delivery_date: TEXT, recipient: TEXT, pod: TEXT,
        status: { type: 'string', enum: ['pending', 'in_progress'] },
      },
    },
  },
  if: { properties: { event: { const: 'ORDER_ADD' } } },
  then: { properties: { event_payload: { required: ['order_id', 'customer', 'location', 'status', 'address', 'delivery_date'] } } },
} as const

export interface BareServer {
  readonly httpsUrl: string
  close(): Promise<void>
}

/**
 * The bare ceiling: Fastify over HTTPS with the service's certificate kind and TLS settings, the
 * envelope validated by a JSON schema, the key header compared with a constant,
 * `201` (`202` for the other events) with an empty body, nothing stored. What any service on this
 * machine could reach before doing its own work: the service's ratio against it is its overhead.
 */
export async function startBareServer(options: { dataDir: string; httpsPort: number; host: string }): Promise<BareServer> {
  const tls = await loadTlsMaterial(options.dataDir, null)
  await writeFile(join(options.dataDir, 'test-api-key'), `${BARE_KEY}\n`, { mode: 0o600 })
  const app = Fastify({ https: { cert: tls.cert, key: tls.key, ...TLS_DEFAULTS }, logger: false })
  app.post<{ Body: { event: string } }>('/v1/deliveries', { schema: { body: ENVELOPE } }, async (request, reply) => {
    if (request.headers['service-api-key'] !== BARE_KEY) return reply.code(401).send()
    return reply.code(request.body.event === 'ORDER_ADD' ? 201 : 202).send()
  })
  // listen answers the address it bound, port included (`https://127.0.0.1:PORT`).
  return { httpsUrl: await app.listen({ port: options.httpsPort, host: options.host }), close: () => app.close() }
}
