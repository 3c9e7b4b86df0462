import { WaybillError } from '@waybill/domain'

/**
 * /readyz's 503: unlike every other 5xx, its detail is for the caller, since a balancer's or an
 * operator's first question is why. It is written to be public (docs/contract.md#health-probes):
 * "disk full", "event store unreachable", never a path, a key or an error's own text. It is not
 * counted as an error answer (`waybill_ready` reports it).
 */
export class NotReadyError extends WaybillError {
  constructor(readonly reasons: readonly string[]) {
    super('server_error', `Not ready: ${reasons.join('; ')}`, { status: 503, headers: { 'retry-after': '5' } })
  }
}
