import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { WaybillError } from '@waybill/domain'

/**
 * The app's one validator engine: TypeBox's compiler for every route's params, querystring and
 * body (the delivery body has its own, `validateDelivery`, on its route). Query and path values
 * arrive as strings and are converted to their declared types first. A refusal is `bad_request`
 * naming the parameter.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema)
  return (value: unknown) => {
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value)
    if (check.Check(converted)) return { value: converted }
    const [first] = check.Errors(converted)
    const field = first === undefined ? 'request' : fieldOf(first.instancePath, first.params)
    const allowed = (first?.params as { allowedValues?: readonly unknown[] } | undefined)?.allowedValues
    const message = `${first?.message ?? 'is invalid'}${allowed === undefined ? '' : ` (${allowed.join(', ')})`}`
    return { error: new WaybillError('bad_request', `${field}: ${message}`) }
  }
}

function fieldOf(instancePath: string, params: unknown): string {
  const named = instancePath.split('/').filter(Boolean).join('.')
  if (named !== '') return named
  const required = (params as { requiredProperties?: readonly string[] }).requiredProperties
  return required?.[0] ?? 'request'
}
