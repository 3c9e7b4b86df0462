import { Readable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { isSealed, streamNameFor, upcastOrderEvent, WaybillError } from '@waybill/domain'
import type { BlobStore, EventStore } from '@waybill/event-store'
import { imageContext, openImagePieces, SealBrokenError, type SubjectKeyStore } from '@waybill/personal-data'
import type { ReadModel } from '@waybill/projector'
import { readAccess } from '../../auth/scope.js'
import { operation } from '../../openapi/operation.js'
import { image as imageAnswer, problems } from '../../openapi/responses.js'
import { accountRead, logAuditorRead } from './auditor.js'
import { openRecorded, recordedImage } from './order-states.js'
import { OneOrderQuery, OrderParams } from './schemas.js'
import { streamSlices } from './stream-slices.js'

/**
 * GET /v1/orders/:order_id/pod and /signature: the image the order's events recorded, read from
 * the event store (the read model's row is a projection, and a row changed on disk must not
 * choose the bytes served), and served only when its blob is what the event recorded
 * (docs/audit.md#images) and opens with the order's key. Once the order's personal data was
 * erased its images are gone: not_found, saying so.
 */
export function getImages(fastify: FastifyInstance, readModel: ReadModel, store: EventStore, blobs: Pick<BlobStore, 'read'>, keys: Pick<SubjectKeyStore, 'get'>): void {
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
      const stream = streamNameFor(row.account, row.order_id)
      const key = keys.get(row.account, row.order_id)
      if (row.erased_at !== null || key === 'erased') throw new WaybillError('not_found', `Order ${row.order_id}'s personal data was erased, its images with it`)
      const recorded = await recordedImage(streamSlices(store, stream), image)
      if (recorded === null) throw new WaybillError('not_found', `Order ${row.order_id} has no ${image}`)
      const log = { blob: recorded.ref.blob, image, account: row.account, order_id: row.order_id }
      const openedCompletion = key === null ? null : openRecorded(stream, key, recorded.completion)
      const opened = openedCompletion?.type === 'OrderCompleted' ? openedCompletion.data[image] : undefined
      const rowImage = row[image]
      if (opened !== undefined && opened !== null && rowImage !== null && rowImage.sha256 !== opened.sha256) {
        // The row is a projection: a row changed on disk is named in the log, and not served.
        request.log.error({ ...log, sha256: opened.sha256, row_blob: rowImage.sha256 }, `the read model's row names image ${rowImage.sha256}, the events recorded ${opened.sha256}`)
      }
      // Checked against its name (once per file on disk, not per read): the client learns
      // nothing of why it is refused; the log names the blob.
      const read = await blobs.read(recorded.ref.blob)
      if (read.status !== 'ok') {
        const problem = read.status === 'missing' ? 'is missing from the blob store' : 'does not hash to its name (changed on disk)'
        request.log.error(log, `image blob ${recorded.ref.blob} ${problem}`)
        throw new WaybillError('server_error')
      }
      const completion = upcastOrderEvent(recorded.completion)
      const sealed = completion?.type === 'OrderCompleted' && isSealed(completion.data.personal)
      let pieces = read.chunks
      if (sealed) {
        if (key === null) {
          request.log.error(log, `no key for order ${row.order_id} in the subject key store`)
          throw new WaybillError('server_error')
        }
        try {
          pieces = await openImagePieces(key, imageContext(stream), read.chunks)
        } catch (error) {
          if (!(error instanceof SealBrokenError)) throw error
          request.log.error(log, `image blob ${recorded.ref.blob} does not open with its order's key`)
          throw new WaybillError('server_error')
        }
      }
      // Written a piece at a time as the connection drains: a 5 MiB image is not encrypted in one go.
      return reply.type(recorded.ref.media_type).header('content-length', recorded.ref.bytes).send(Readable.from(pieces))
    })
  }
}
