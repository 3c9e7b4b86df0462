import { createHash } from 'node:crypto'
import type { DecodedImage, ValidDelivery } from '@waybill/domain'

/**
 * The made-up business the scale bench stores: every figure below is derived from an order's
 * number n alone, so a store of any size can be rebuilt, resumed and sampled without keeping a
 * list, and a smaller store is the beginning of a bigger one.
 *
 * Accounts are uneven (the largest holds 40% of the orders, the smallest 2%); each account's
 * customers grow with its orders (about six orders each), its depots (`location`) do not (40).
 * Orders arrive at a steady 2,500 a day, so a bigger log is a longer history: 100,000 events are
 * ten days, 10,000,000 a thousand. Each order has four events: added (pending), taken out
 * (in_progress), its address corrected, then completed with a proof-of-delivery photo (75%, a
 * third of them with a signature too), canceled (20%), or updated once more and still out (5%).
 */
export const PER_ORDER = 4
const ORDERS_PER_DAY = 2500
export const LOCATIONS = 40

/** The accounts and their share of the orders, in percent. */
export const ACCOUNTS: ReadonlyArray<readonly [string, number]> = [
  ['northwind', 40], ['globex', 20], ['initech', 12], ['umbrella', 8], ['hooli', 8], ['stark', 6], ['wayne', 4], ['acme', 2],
]

const START = Date.UTC(2024, 0, 1)
const SECONDS_PER_ORDER = 86_400 / ORDERS_PER_DAY

/** A bijection of 32-bit numbers that scatters neighbours (so ids do not sort in arrival order). */
export function scatter(n: number): number {
  let x = Math.imul(n ^ 0x5bd1e995, 0x9e3779b1) >>> 0
  x = Math.imul(x ^ (x >>> 15), 0x85ebca6b) >>> 0
  return (x ^ (x >>> 13)) >>> 0
}

export function accountOf(n: number): string {
  let slot = scatter(n) % 100
  for (const [account, share] of ACCOUNTS) {
    if (slot < share) return account
    slot -= share
  }
  /* c8 ignore next 2 */
  throw new Error('the account shares do not add up to 100')
}

/** Order ids in no particular order, unique (the scatter is a bijection), eight hex digits. */
export const orderIdOf = (n: number): string => `ord-${scatter(n).toString(16).padStart(8, '0')}`
/**
 * Order n's customer, one of the n / 6 customers there are by then: the number of customers
 * grows with the log (about six orders each), older customers have had longer to order again.
 */
export const customerOf = (n: number): string => `cust-${scatter(n ^ 0x2545f491) % (Math.floor(n / 6) + 1)}`
const locationOf = (n: number): string => `depot-${scatter(n ^ 0x68e31da4) % LOCATIONS}`

/** Seconds from the start of the history to the arrival of order n, in ISO form. */
export const dateAt = (seconds: number): string => new Date(START + Math.round(seconds) * 1000).toISOString().replace('.000Z', 'Z')
export const addedAt = (n: number): number => n * SECONDS_PER_ORDER

type Ending = 'completed' | 'canceled' | 'out'

function endingOf(n: number): Ending {
  const slot = scatter(n ^ 0x1b873593) % 20
  return slot < 15 ? 'completed' : slot < 19 ? 'canceled' : 'out'
}

/** A stand-in for a photo: 1.5 KiB of bytes unique to the order (sealing makes each blob unique anyway). */
function photoOf(n: number, kind: 'pod' | 'signature'): DecodedImage {
  const seed = createHash('sha256').update(`${kind}-${n}`).digest()
  const bytes = Buffer.alloc(kind === 'pod' ? 1536 : 512)
  for (let i = 0; i < bytes.length; i += seed.length) seed.copy(bytes, i)
  bytes.set([0xff, 0xd8, 0xff, 0xe0])
  return { bytes, media_type: 'image/jpeg', sha256: createHash('sha256').update(bytes).digest('hex') }
}

/** Order n's four deliveries, as the service would have accepted them. */
export function deliveriesOf(n: number): ValidDelivery[] {
  const order_id = orderIdOf(n)
  const at = addedAt(n)
  const address = `${scatter(n) % 9000 + 1} Main St`
  const corrected = `${scatter(n) % 9000 + 1} Main Street, apt ${n % 40}`
  const deliveryDate = dateAt(at + 86_400)
  const ending = endingOf(n)
  const last: ValidDelivery = ending === 'completed'
    ? {
      event: 'ORDER_COMPLETE', event_date: dateAt(at + 6 * 3600),
      payload: {
        order_id, address: corrected, delivery_date: dateAt(at + 6 * 3600), recipient: `Recipient ${n % 997}`,
        pod: photoOf(n, 'pod'), ...(n % 3 === 0 ? { signature: photoOf(n, 'signature') } : {}),
      },
    }
    : ending === 'canceled'
      ? { event: 'ORDER_CANCELED', event_date: dateAt(at + 6 * 3600), payload: { order_id, reason: 'the customer asked' } }
      : { event: 'ORDER_UPDATE', event_date: dateAt(at + 6 * 3600), payload: { order_id, status: 'in_progress', address: corrected, delivery_date: dateAt(at + 2 * 86_400) } }
  return [
    {
      event: 'ORDER_ADD', event_date: dateAt(at),
      payload: { order_id, customer: customerOf(n), location: locationOf(n), status: 'pending', address, delivery_date: deliveryDate },
    },
    { event: 'ORDER_UPDATE', event_date: dateAt(at + 3600), payload: { order_id, status: 'in_progress', address, delivery_date: deliveryDate } },
    { event: 'ORDER_UPDATE', event_date: dateAt(at + 2 * 3600), payload: { order_id, status: 'in_progress', address: corrected, delivery_date: deliveryDate } },
    last,
  ]
}
