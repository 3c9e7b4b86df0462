import { createHash } from 'node:crypto'
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { dropImages, startCeilingServer } from '../../src/ceiling/start-ceiling.js'
import { postDelivery } from '../post-delivery.js'

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const NOT_AN_IMAGE = `data:image/png;base64,${Buffer.from('not a png').toString('base64')}`

/** Accepted events are answered without a body; problems carry their code. */
async function post(url: string, ca: string, key: string, body: unknown): Promise<{ status: number; code: unknown }> {
  const { status, text } = await postDelivery(url, ca, key, JSON.stringify(body))
  return { status, code: text === '' ? undefined : (JSON.parse(text) as { code?: unknown }).code }
}

t.test('the ceiling (starts a server): the service\'s answers, with nothing written but its key and certificate', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-ceiling-test-'))
  const server = await startCeilingServer({
    dataDir, httpsPort: 0, httpPort: 0, host: '127.0.0.1', tls: null, trustProxy: [], logLevel: 'silent',
  })
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const key = server.sandbox.created
  if (key === null) throw new Error('a fresh ceiling must issue the sandbox key')
  const ca = await readFile(server.certPath, 'utf8')
  const send = (body: unknown) => post(server.httpsUrl, ca, key, body)

  const add = { event: 'ORDER_ADD', event_date: '2025-03-01T10:00:00Z', event_payload: {
    order_id: 'c-1', customer: 'c', location: 'l', status: 'pending', address: '1 Main St', delivery_date: '2025-03-02T10:00:00Z' } }
  t.equal((await send(add)).status, 201, 'ORDER_ADD is accepted')
  t.equal((await send(add)).status, 201, 'its exact retry answers the original status')
  t.same(await send({ ...add, event_date: '2025-03-01T10:00:01Z' }), { status: 409, code: 'conflict' }, 'the stream is read back: a second add conflicts')

  const complete = (pod: string) => ({ event: 'ORDER_COMPLETE', event_date: '2025-03-01T12:00:00Z', event_payload: {
    order_id: 'c-1', address: '1 Main St', delivery_date: '2025-03-01T12:00:00Z', recipient: 'Ann Smith', pod } })
  t.same(await send(complete(NOT_AN_IMAGE)), { status: 400, code: 'bad_request' }, 'images are still decoded and checked')
  t.ok([201, 202].includes((await send(complete(PNG))).status), 'a completion with a real PNG is accepted')

  await server.close()
  t.same((await readdir(dataDir)).sort(), ['test-api-key', 'tls'], 'no event store and no image on disk')
  // The read routes find no order in the ceiling's empty read model, so they never ask for one.
  const accepted = createHash('sha256').update(Buffer.from(PNG.slice(PNG.indexOf(',') + 1), 'base64')).digest('hex')
  t.same(await dropImages.read(accepted), { status: 'missing' }, 'the accepted PNG is not kept to be read back')
})
