import type { FastifyInstance } from 'fastify'
import { WaybillError } from '@waybill/domain'
import { auditKeyDocument, type HeadStore } from '@waybill/projector'
import { operation } from '../../openapi/operation.js'
import { json, problems } from '../../openapi/responses.js'
import { PublicKeyListSchema, PublicKeySchema } from './schemas.js'

/**
 * GET /v1/audit/public-key (the current key) and GET /v1/audit/public-keys (every key, current
 * and retired, with its validity and the signed statement by which it took over); no API key
 * needed. Read from the heads file, so a process that does not sign (`serve --no-projector`)
 * serves them without the key directory (docs/audit.md#key-lifecycle).
 */
export function getPublicKeys(app: FastifyInstance, heads: HeadStore): void {
  app.get('/v1/audit/public-key', {
    config: { public: true },
    schema: operation({ id: 'getAuditPublicKey', summary: 'The Ed25519 public key that verifies the signed tree heads', tags: ['audit'], keyed: false }, {
      response: { 200: json(PublicKeySchema, 'The current public key', { rateLimited: true }), ...problems(['not_found'], { keyed: false }) },
    }),
  }, async () => {
    const current = heads.currentKey()
    if (current === null) throw new WaybillError('not_found', 'No tree-head signing key has been recorded yet')
    return auditKeyDocument(current)
  })

  app.get('/v1/audit/public-keys', {
    config: { public: true },
    schema: operation({ id: 'getAuditPublicKeys', summary: 'Every public key that verifies signed tree heads, current and retired, with its validity', tags: ['audit'], keyed: false }, {
      response: { 200: json(PublicKeyListSchema, 'The key set, in the order the keys took over', { rateLimited: true }), ...problems([], { keyed: false }) },
    }),
  }, async () => ({ keys: heads.keys().map(auditKeyDocument) }))
}
