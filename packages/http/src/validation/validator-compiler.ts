import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { compileWireValidator } from '@waybill/domain/wire'

/**
 * The app's one validator engine: the domain's wire validator (TypeBox's compiler, the words of a
 * refusal read off the schema) for every route's params, querystring and body; the delivery body
 * has its own, `validateDelivery`, on its route. Query and path values arrive as text and are
 * converted to their declared types first (defaults filled in).
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) =>
  compileWireValidator(schema, { convert: httpPart !== 'body' })
