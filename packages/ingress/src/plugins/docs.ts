import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { shapeOpenApi } from '../http/openapi-shape.js'

/** The OpenAPI document, generated from the route schemas, and its UI at /docs (no key needed). */
async function docs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Waybill',
        description: 'Delivery events over HTTPS. Errors are RFC 9457 problem bodies (application/problem+json) with a `code` member; see README.md for the status code table.',
        version: '1.0.0',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key' } },
      },
    },
    transformObject: (document) => 'openapiObject' in document ? shapeOpenApi(document.openapiObject) : document.swaggerObject,
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

/** Swagger UI's generated policy with everything it lets in from elsewhere taken out. */
function strictDocsCsp(header: string): string {
  const directives = header.split(';').map((part) => part.trim()).filter(Boolean)
    .filter((directive) => !/^(frame-ancestors|form-action|upgrade-insecure-requests)\b/.test(directive))
    .map((directive) => directive.replace(/ (https:|validator\.swagger\.io)(?= |$)/g, ''))
  return [...directives, "frame-ancestors 'none'", "form-action 'none'", "connect-src 'self'"].join('; ')
}
