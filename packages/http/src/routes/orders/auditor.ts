import type { FastifyRequest } from 'fastify'
import type { ReadAccess } from '@waybill/keys'
import { isAccountId, streamNameFor, WaybillError } from '@waybill/domain'
import type { EventStore } from '@waybill/event-store'

/** The query string as sent, so that a parameter the route schema does not know is seen too. */
export function queryOf(request: FastifyRequest): URLSearchParams {
  return new URLSearchParams(request.url.split('?')[1] ?? '')
}

/**
 * The account an auditor key reads: named once in `?account=`, as an account id. An ordinary
 * key's `account` parameter is ignored on the one-order routes, as any unknown parameter always
 * was: its own account is the only one it can read.
 */
export function auditedAccount(request: FastifyRequest): string {
  const named = queryOf(request).getAll('account')
  const [account] = named
  if (named.length !== 1 || account === undefined || !isAccountId(account)) {
    throw new WaybillError('bad_request', 'account: an auditor key names the account to read, once (?account=<account id>)')
  }
  return account
}

/** What one auditor read returned: the account and order, or for a list every order on the page. */
export interface AuditedRead {
  readonly account: string
  readonly order_id: string | null
  readonly orders?: ReadonlyArray<{ readonly account: string; readonly order_id: string }>
}

/**
 * One log line per auditor read, with its key id and route: written at `info` even when the
 * logger is set higher (only `silent` silences it), since an audit trail that a log level can
 * switch off is not one.
 */
export function logAuditorRead(request: FastifyRequest, keyId: string, read: AuditedRead): void {
  const log = request.log.level === 'silent' ? request.log : request.log.child({}, { level: 'info' })
  log.info({ audit: { key_id: keyId, route: request.routeOptions.url, ...read } }, 'auditor read')
}

/** The caller's access, as the route's `readAccess` hook found it. */
export function readerOf(request: FastifyRequest): ReadAccess {
  /* c8 ignore next */
  if (request.reader === null) throw new TypeError(`${request.routeOptions.url ?? ''} has no readAccess hook`)
  return request.reader
}

/** The caller's access and the account a one-order route reads: its own, or an auditor's `?account=`. */
export function accountRead(request: FastifyRequest): { readonly access: ReadAccess; readonly account: string } {
  const access = readerOf(request)
  return { access, account: access.auditor ? auditedAccount(request) : access.account }
}

/**
 * The stream of the order a one-order route names, for a caller that may read it: `not_found`
 * when it holds no event (its first is read to know); an auditor's read is logged. The route then
 * reads what it needs of the stream a slice at a time (`streamSlices`).
 */
export async function findOrderStream(request: FastifyRequest, orderId: string, store: Pick<EventStore, 'readStream'>) {
  const { access, account } = accountRead(request)
  const stream = streamNameFor(account, orderId)
  if ((await store.readStream(stream, { maxCount: 1 })).length === 0) throw new WaybillError('not_found', `No order ${orderId}`)
  if (access.auditor) logAuditorRead(request, access.keyId, { account, order_id: orderId })
  return { access, account, stream }
}
