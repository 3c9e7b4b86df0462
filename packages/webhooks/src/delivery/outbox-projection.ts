import type { AppliedCount, Projection } from '@waybill/projector'
import type { Endpoint } from '../endpoints/endpoint.js'
import type { Outbox } from './outbox.js'

/**
 * One endpoint's queue as a projection the projector's loop runs (`startProjectionLoop`): the
 * log's order events after the endpoint's checkpoint become its messages, and the checkpoint
 * moves in the same transaction, so a crash keeps both or neither. The file is the deliverer's
 * one connection, which the loop neither opens nor closes.
 */
export function outboxProjection(outbox: Outbox, endpoint: Endpoint, now: () => number, onQueued: () => void): Projection {
  const writer = {
    path: outbox.path,
    checkpoint: () => outbox.checkpoint(endpoint.id),
    applyBatch: (events: Parameters<Outbox['enqueue']>[1], through: Parameters<Outbox['enqueue']>[2]): AppliedCount =>
      outbox.enqueue(endpoint, events, through, now()),
    close: () => undefined,
  }
  return {
    name: `webhook ${endpoint.id}`,
    open: () => writer,
    afterBatch: (outcome) => { if (outcome.applied > 0) onQueued() },
    close: () => undefined,
  }
}
