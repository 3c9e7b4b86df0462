import {
  evolve, isAccountId, orderDecider, SANDBOX_ACCOUNT, streamNameFor, upcastOrderEvent, type OrderState,
} from '@waybill/domain'
import { verifyStreamChain, type RecordedEvent } from '@waybill/event-store'
import { defineCommand, UsageError } from '../command.js'
import { withStore } from '../with-store.js'

const HELP = `Usage: waybill replay <order_id> [--account <account>] [--json]

For auditors: reads the order's stream from the event store, prints every event and the
order's state after it, and verifies the stream's hash chain (each event's hash matches its
content and the next event's prev_hash). Exit code 0 when the chain holds, 1 when it breaks
(the revision where it breaks is printed) or the order does not exist, 2 on a usage error.

  --account <account>  the account that owns the order (default: sandbox)
  --json               one JSON document instead of text`

export const command = defineCommand({
  name: 'replay',
  help: HELP,
  options: { account: { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, env, stdout, stderr }) {
    const [orderId, ...extra] = positionals
    const account = values.account ?? SANDBOX_ACCOUNT
    if (orderId === undefined) throw new UsageError('an order_id is required')
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`)
    if (!isAccountId(account)) throw new UsageError(`not an account id: ${account}`)
    return withStore(env, { create: false, writer: 'inline' }, async (opened) => {
      const stream = streamNameFor(account, orderId)
      const events = await opened.store.readStream(stream)
      if (events.length === 0) {
        stderr.write(`waybill replay: no order ${orderId} in account ${account} (stream ${stream} is empty)\n`)
        return 1
      }
      const steps = stateAfterEach(events)
      const chain = verifyStreamChain(events)
      if (values.json === true) {
        stdout.write(`${JSON.stringify({ stream, events: steps.map(({ event, state }) => ({ ...eventJson(event), state })), chain }, null, 2)}\n`)
      } else {
        stdout.write(`stream ${stream}: ${events.length} event(s)\n`)
        for (const { event, state } of steps) stdout.write(textOf(event, state))
        stdout.write(chain.ok
          ? `hash chain: ok (${events.length} events, head ${events.at(-1)?.hash})\n`
          : `hash chain: BROKEN at revision ${chain.revision}: ${chain.reason}\n`)
      }
      return chain.ok ? 0 : 1
    })
  },
})

function stateAfterEach(events: readonly RecordedEvent[]): Array<{ event: RecordedEvent; state: Record<string, unknown> }> {
  let state: OrderState = orderDecider.initialState()
  return events.map((event) => {
    // A type the domain does not know leaves the state as it was (and is shown as such).
    const current = upcastOrderEvent(event)
    if (current !== null) state = evolve(state, current)
    const { eventIds: _ids, ...shown } = state
    return { event, state: shown }
  })
}

function eventJson(event: RecordedEvent) {
  return {
    revision: event.revision,
    type: event.type,
    id: event.id,
    position: event.position.commit.toString(),
    data: event.data,
    metadata: event.metadata,
    hash: event.hash,
  }
}

function textOf(event: RecordedEvent, state: Record<string, unknown>): string {
  const received = typeof event.metadata.received_at === 'string' ? event.metadata.received_at : '?'
  const date = typeof event.data.event_date === 'string' ? event.data.event_date : '?'
  return [
    ``,
    `#${event.revision} ${event.type}  event_date ${date}  received ${received}  position ${event.position.commit}`,
    `   hash ${event.hash}  prev ${event.metadata.prev_hash ?? '-'}`,
    `   data  ${JSON.stringify(event.data)}`,
    `   state ${JSON.stringify(state)}`,
    '',
  ].join('\n')
}
