import Fastify from 'fastify'
import t from 'tap'
import { lazySerializerFactory } from '../../src/serialization/lazy-serializer.js'

const external = { Point: { $id: 'Point', type: 'object', properties: { x: { type: 'integer' } } } }
const route = (schema: unknown) => ({ method: 'GET', url: '/p', httpStatus: '200', schema })

t.test('a serializer is built on its first use, once, and writes what fast-json-stringify writes', (t) => {
  const built: unknown[] = []
  // A schema fast-json-stringify refuses shows when the build happens: not at registration.
  const compile = lazySerializerFactory(external, {})
  const broken = compile(route({ type: 'object', properties: { a: { $ref: 'Missing#' } } }))
  t.pass('registering a schema that cannot be built does not build it')
  t.throws(() => broken({ a: 1 }), /Missing/, 'its first use builds it, and fails there')

  const serialize = compile(route({ type: 'object', properties: { at: { $ref: 'Point#' }, name: { type: 'string' } } }))
  const data = { at: { x: 3, y: 4 }, name: 'n', extra: true }
  built.push(serialize(data), serialize({ at: { x: 5 }, name: 'm' }))
  t.same(built, ['{"at":{"x":3},"name":"n"}', '{"at":{"x":5},"name":"m"}'], 'only the declared properties, through the external schema')
  t.end()
})

t.test('Fastify with the lazy factory answers through the route\'s response schema', async (t) => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } } })
  t.teardown(() => app.close())
  app.addSchema(external.Point)
  app.get('/p', { schema: { response: { 200: { type: 'object', properties: { at: { $ref: 'Point#' } } } } } }, () => ({ at: { x: 1, y: 2 }, secret: 'kept out' }))
  const answer = await app.inject({ method: 'GET', url: '/p' })
  t.equal(answer.statusCode, 200)
  t.equal(answer.body, '{"at":{"x":1}}', 'undeclared properties are left out, as with the eager serializer')
})
