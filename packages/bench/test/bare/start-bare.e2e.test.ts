import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { BARE_KEY, startBareServer } from '../../src/bare/start-bare.js'
import { postDelivery as post } from '../post-delivery.js'

const payload = { order_id: 'A1', customer: 'c', location: 'l', status: 'pending', address: '1 Main St', delivery_date: '2025-03-02T10:00:00Z' }
const envelope = (event: string, fields: Record<string, unknown>, date = '2025-03-01T10:00:00Z'): string =>
  JSON.stringify({ event, event_date: date, event_payload: fields })

t.test('the bare ceiling (starts a server): a schema, a constant key, 201 with an empty body, nothing stored', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'waybill-bare-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const server = await startBareServer({ dataDir, httpsPort: 0, host: '127.0.0.1' })
  t.teardown(() => server.close())
  const ca = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8')
  const key = (await readFile(join(dataDir, 'test-api-key'), 'utf8')).trim()
  t.equal(key, BARE_KEY, 'the key is written where the bench reads the service\'s')

  t.same(await post(server.httpsUrl, ca, key, envelope('ORDER_ADD', payload)), { status: 201, text: '' })
  t.same(await post(server.httpsUrl, ca, key, envelope('ORDER_UPDATE', { order_id: 'A1', status: 'in_progress' })), { status: 202, text: '' })
  t.equal((await post(server.httpsUrl, ca, 'wb_test_other', envelope('ORDER_ADD', payload))).status, 401, 'another key')
  t.equal((await post(server.httpsUrl, ca, key, envelope('ORDER_SHIP', payload))).status, 400, 'an event outside the enum')
  t.equal((await post(server.httpsUrl, ca, key, envelope('ORDER_ADD', payload, '2025-03-01 10:00'))).status, 400, 'a date off the pattern')
  t.equal((await post(server.httpsUrl, ca, key, envelope('ORDER_ADD', { ...payload, status: 'lost' }))).status, 400, 'a status outside the enum')
  t.equal((await post(server.httpsUrl, ca, key, envelope('ORDER_ADD', { ...payload, customer: 'c'.repeat(1025) }))).status, 400, 'a field past 1,024')
  const { customer: _customer, ...withoutCustomer } = payload
  t.equal((await post(server.httpsUrl, ca, key, envelope('ORDER_ADD', withoutCustomer))).status, 400, 'ORDER_ADD needs its six fields')
  t.same((await readdir(dataDir)).sort(), ['test-api-key', 'tls'], 'nothing stored')
})
