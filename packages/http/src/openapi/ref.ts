import { Type, type Static, type TSchema, type TUnsafe } from 'typebox'

/**
 * A reference to a schema the app registers by name (`components.ts`): the OpenAPI document
 * shows `$ref: '#/components/schemas/<name>'`, so generated clients get a named type, and Fastify
 * serializes with the registered schema. Typed as `Schema`, the schema registered under `name`
 * (`ref<typeof OrderSchema>('Order')`); a name nobody registered fails the app's start.
 */
export function ref<Schema extends TSchema>(name: string): TUnsafe<Static<Schema>> {
  return Type.Unsafe<Static<Schema>>({ $ref: `${name}#` })
}
