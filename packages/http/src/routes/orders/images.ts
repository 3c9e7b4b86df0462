import { Readable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { streamNameFor, WaybillError } from '@waybill/domain'
import type { BlobStore, EventStore } from '@waybill/event-store'
import type { ReadModel } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { image as imageAnswer, problems } from '../../openapi/responses.js'
import { accountRead, logAuditorRead } from './auditor.js'
import { recordedImage } from './order-states.js'
import { OneOrderQuery, OrderParams } from './schemas.js'
import { streamSlices } from './stream-slices.js'

/**
 * GET /v1/orders/:order_id/pod and /signature: the image the order's events recorded, read from
 * the event store (the read model's row is a projection, and a row changed on disk must not
 * choose the bytes served), and served only when its bytes are what the event recorded
 * (docs/audit.md#images).
 */
export function getImages(fastify: FastifyInstance, readModel: ReadModel, store: EventStore, blobs: Pick<BlobStore, 'read'>): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  for (const image of ['pod', 'signature'] as const) {
    app.get(`/v1/orders/:order_id/${image}`, {
      preValidation: readAccess,
      schema: operation({ id: image === 'pod' ? 'getOrderPod' : 'getOrderSignature', summary: `The ${image} image of a completed order, as stored`, tags: ['orders'], keyed: true }, {
        params: OrderParams, querystring: OneOrderQuery,
        response: { 200: imageAnswer('The image bytes, in the media type they were sent in'), ...problems(['bad_request', 'not_found'], { keyed: true }) },
      }),
    }, async (request, reply) => {
      const { access, account } = accountRead(request)
      const row = readModel.getOrder(account, request.params.order_id)
      if (row === null) throw new WaybillError('not_found', `No order ${request.params.order_id}`)
      if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: row.order_id })
      const ref = await recordedImage(streamSlices(store, streamNameFor(row.account, row.order_id)), image)
      if (ref === null) throw new WaybillError('not_found', `Order ${row.order_id} has no ${image}`)
      if (row[image]?.sha256 !== ref.sha256) {
        request.log.error({ blob: ref.sha256, row_blob: row[image]?.sha256 ?? null, image, account: row.account, order_id: row.order_id },
          `the read model's ${image} differs from the one the order's events recorded; serving the recorded one (run waybill verify)`)
      }
      // Checked against its name (once per file on disk, not per read): the client learns
      // nothing of why it is refused; the log names the blob.
      const read = await blobs.read(ref.sha256)
      if (read.status !== 'ok') {
        const problem = read.status === 'missing' ? 'is missing from the blob store' : 'does not hash to its name (changed on disk)'
        request.log.error({ blob: ref.sha256, image, account: row.account, order_id: row.order_id }, `image blob ${ref.sha256} ${problem}`)
        throw new WaybillError('server_error')
      }
      // Written a piece at a time as the connection drains: a 5 MiB image is not encrypted in one go.
      return reply.type(ref.media_type).header('content-length', read.size).send(Readable.from(read.chunks))
    })
  }
}
