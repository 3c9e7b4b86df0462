import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

/**
 * Fastify's own response serializers (fast-json-stringify), each built the first time its route
 * answers with that status rather than when the route is registered. Building them all took about
 * half of the CPU of building the app (some 100 ms for ~40 routes), paid by every start and every
 * test that builds an app, for serializers most of which that app never uses. A schema fast-json-stringify
 * cannot build fails that route's first answer of that status, not the start: the route tests
 * answer every route and status.
 */
export const lazySerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data: unknown) => (serialize ??= compile(route))(data)
  }
}
