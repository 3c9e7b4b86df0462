import { DELIVERY_EXAMPLES } from '@waybill/domain/wire'

/**
 * The delivery examples in the order "Try it out" is accepted in: one order added, updated and
 * completed, then a second order added and canceled (the ORDER_CANCELED example's order, which
 * no other example adds; a completed order cannot be canceled).
 */
export function deliveryExamples(): Record<string, { summary: string; description: string; value: unknown }> {
  const { ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE, ORDER_CANCELED } = DELIVERY_EXAMPLES
  const first = ORDER_ADD.event_payload.order_id
  const second = ORDER_CANCELED.event_payload.order_id
  const addSecond = { ...ORDER_ADD, event_payload: { ...ORDER_ADD.event_payload, order_id: second } }
  return {
    ORDER_ADD: { summary: 'ORDER_ADD', description: `Adds order ${first} (201). Send it first: the next two examples are about this order.`, value: ORDER_ADD },
    ORDER_UPDATE: { summary: 'ORDER_UPDATE', description: `Updates order ${first}, added by the ORDER_ADD example (202).`, value: ORDER_UPDATE },
    ORDER_COMPLETE: { summary: 'ORDER_COMPLETE', description: `Completes order ${first}, with a proof of delivery and a signature (202); the order is then locked.`, value: ORDER_COMPLETE },
    ORDER_ADD_TO_CANCEL: { summary: `ORDER_ADD of ${second}`, description: `Adds order ${second} (201), the one the ORDER_CANCELED example cancels.`, value: addSecond },
    ORDER_CANCELED: {
      summary: 'ORDER_CANCELED',
      description: `Cancels order ${second}, added before by the "ORDER_ADD of ${second}" example (202). Sent before that order is added, it answers 404 not_found.`,
      value: ORDER_CANCELED,
    },
  }
}
