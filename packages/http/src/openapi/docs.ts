import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { openApiDescription } from './description.js'
import { registerComponents } from './components.js'
import { withRequestMedia } from './request-media.js'

/** The OpenAPI document, generated from the route schemas, and its UI at /docs (no key needed). */
async function docs(app: FastifyInstance): Promise<void> {
  registerComponents(app)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Waybill',
        description: openApiDescription(),
        version: '1.0.0',
      },
      servers: [{
        url: 'https://{host}:{port}',
        description: 'A Waybill server (its HTTPS port is WAYBILL_HTTPS_PORT, 8443 unless configured)',
        variables: { host: { default: 'localhost' }, port: { default: '8443' } },
      }],
      tags: [
        { name: 'deliveries', description: 'Send delivery events' },
        { name: 'orders', description: 'Read orders, their history and images (scope orders:read)' },
        { name: 'service', description: 'Health, key check and error descriptions' },
        { name: 'audit', description: 'The signed tree heads of the audit log, consistency proofs between them, an order\'s inclusion proofs, and the public key that verifies them (any key that reads; the public key needs none)' },
        { name: 'webhooks', description: 'The operator\'s webhook endpoints and their delivery log (auditor keys, orders:audit); endpoints are managed with `waybill webhooks`' },
      ],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key', description: 'The API key issued to the courier (`waybill keys create`)' } },
      },
    },
    // A registered schema is named in components.schemas by its $id (components.ts).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` },
    transformObject: (document) => 'openapiObject' in document ? withRequestMedia(document.openapiObject) : document.swaggerObject,
  })
  await app.register(async (ui) => {
    ui.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true, rateLimit: false }
    })
    await ui.register(swaggerUi, {
      routePrefix: '/docs',
      // Swagger UI's own policy (hashes of its inline script and style), made stricter: no
      // framing, no forms, no outside images or fonts (its validator badge is off).
      staticCSP: true,
      transformStaticCSP: (header) => strictDocsCsp(header),
      uiConfig: { validatorUrl: null },
    })
  })
}

export default fp(docs, { name: 'waybill-docs' })

/** The document the app serves at /docs/json, for `waybill openapi`. */
export function openApiDocument(app: FastifyInstance): unknown {
  return app.swagger()
}

/** Swagger UI's generated policy with everything it lets in from elsewhere taken out. */
function strictDocsCsp(header: string): string {
  const directives = header.split(';').map((part) => part.trim()).filter(Boolean)
    .filter((directive) => !/^(frame-ancestors|form-action|upgrade-insecure-requests)\b/.test(directive))
    .map((directive) => directive.replace(/ (https:|validator\.swagger\.io)(?= |$)/g, ''))
  return [...directives, "frame-ancestors 'none'", "form-action 'none'", "connect-src 'self'"].join('; ')
}
