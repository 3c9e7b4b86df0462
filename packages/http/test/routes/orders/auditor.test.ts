import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { WaybillError } from '@waybill/domain'
import { auditedAccount, logAuditorRead } from '../../../src/routes/orders/auditor.js'

/** A request whose logger records (level it was set to, object) for each info line. */
function request(url: string, level = 'info', lines: unknown[] = []): FastifyRequest {
  interface Logger { level: string; info(object: unknown): void; child(): Logger }
  const logger = (at: string): Logger => ({ level: at, info: (object) => lines.push([at, object]), child: () => logger('info') })
  return { url, log: logger(level), routeOptions: { url: '/v1/orders/:order_id' } } as unknown as FastifyRequest
}

t.test('an auditor names one account id', async (t) => {
  t.equal(auditedAccount(request('/v1/orders/A?account=acme_2')), 'acme_2')
  for (const url of ['/v1/orders/A', '/v1/orders/A?account=', '/v1/orders/A?account=%2A', '/v1/orders/A?account=a&account=a', `/v1/orders/A?account=${'a'.repeat(65)}`]) {
    t.throws(() => auditedAccount(request(url)), new WaybillError('bad_request', 'account: an auditor key names the account to read, once (?account=<account id>)'), url)
  }
})

t.test('an audit line is written at info even when the log is set higher; only silent silences it', async (t) => {
  const lines: unknown[] = []
  logAuditorRead(request('/v1/orders/A?account=acme', 'error', lines), 'Key123456789', { account: 'acme', order_id: 'A' })
  t.same(lines, [['info', { audit: { key_id: 'Key123456789', route: '/v1/orders/:order_id', account: 'acme', order_id: 'A' } }]])
  const quiet: unknown[] = []
  logAuditorRead(request('/v1/orders/A?account=acme', 'silent', quiet), 'Key123456789', { account: 'acme', order_id: 'A' })
  t.same(quiet, [['silent', { audit: { key_id: 'Key123456789', route: '/v1/orders/:order_id', account: 'acme', order_id: 'A' } }]], 'handed to the silent logger, which drops it')
})
