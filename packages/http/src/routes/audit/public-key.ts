import type { KeyObject } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { publicKeyDocument } from '@waybill/projector'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { PublicKeySchema } from './schemas.js'

/** GET /v1/audit/public-key: the key that verifies the signed heads; no API key needed. */
export function getPublicKey(app: FastifyInstance, publicKey: KeyObject): void {
  app.get('/v1/audit/public-key', {
    config: { public: true },
    schema: operation({ id: 'getAuditPublicKey', summary: 'The Ed25519 public key that verifies the signed tree heads', tags: ['audit'], keyed: false }, {
      response: { 200: json(PublicKeySchema, 'The public key', { rateLimited: true }), ...problems([], { keyed: false }) },
    }),
  }, async () => publicKeyDocument(publicKey))
}
