import type { Api, DeliveryAttempt, DeliveryQuery, WebhookEndpoint } from '../api.js'
import { h, show } from '../dom.js'
import { messageOf } from './orders.js'

const PAGE_SIZE = 25

/** A time as the page shows it: to the second, UTC. */
function when(time: string | null): HTMLElement | string {
  return time === null ? '–' : h('time', { datetime: time }, `${time.slice(0, 10)} ${time.slice(11, 19)}Z`)
}

/**
 * The webhooks page (auditor keys): the operator's endpoints, their state and backlog, and the
 * delivery log, newest attempt first, filtered by endpoint and failure, with the API's own paging.
 * The endpoints are managed with `waybill webhooks`, not here: the page reads.
 */
export async function webhooksPage(api: Api, params: URLSearchParams): Promise<void> {
  const endpoints = h('section', { id: 'endpoints', 'aria-labelledby': 'endpoints-title', 'aria-busy': 'true' },
    h('h2', { id: 'endpoints-title' }, 'Endpoints'), h('p', {}, 'Loading…'))
  const deliveries = h('section', { id: 'deliveries', 'aria-labelledby': 'deliveries-title', 'aria-busy': 'true' },
    h('h2', { id: 'deliveries-title' }, 'Delivery log'), h('p', {}, 'Loading…'))
  show(h('h1', {}, 'Webhooks'),
    h('p', { class: 'help' }, 'Where Waybill sends every accepted order event, and every attempt it made. Endpoints are added, disabled and replayed by the operator with waybill webhooks.'),
    endpoints, deliveries)

  let listed: readonly WebhookEndpoint[] = []
  try {
    listed = (await api.webhookEndpoints()).endpoints
    endpoints.replaceChildren(h('h2', { id: 'endpoints-title' }, 'Endpoints'), endpointTable(listed))
  } catch (error) {
    endpoints.replaceChildren(h('h2', { id: 'endpoints-title' }, 'Endpoints'), h('p', { role: 'alert', class: 'error' }, messageOf(error)))
  }
  endpoints.setAttribute('aria-busy', 'false')

  const filters = filterForm(listed, params)
  try {
    const page = await api.webhookDeliveries(queryOf(params))
    deliveries.replaceChildren(h('h2', { id: 'deliveries-title' }, 'Delivery log'), filters, attemptTable(page.deliveries), ...paging(params, page.next_cursor))
  } catch (error) {
    deliveries.replaceChildren(h('h2', { id: 'deliveries-title' }, 'Delivery log'), filters, h('p', { role: 'alert', class: 'error' }, messageOf(error)))
  }
  deliveries.setAttribute('aria-busy', 'false')
}

function endpointTable(endpoints: readonly WebhookEndpoint[]): HTMLElement {
  if (endpoints.length === 0) return h('p', {}, 'No webhook endpoint has been added.')
  return h('table', { class: 'endpoints' },
    h('thead', {}, h('tr', {}, ['Endpoint', 'State', 'URL', 'Account', 'Events', 'Backlog', 'Oldest pending', 'Last success'].map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, endpoints.map((endpoint) => h('tr', {},
      h('th', { scope: 'row' }, endpoint.id),
      h('td', {}, h('span', { class: `status state-${endpoint.state}` }, endpoint.state),
        endpoint.disabled_reason === null ? null : h('small', { class: 'reason' }, endpoint.disabled_reason),
        endpoint.held_until === null ? null : h('small', { class: 'reason' }, `held until ${endpoint.held_until} (Retry-After)`)),
      h('td', { class: 'url' }, endpoint.url),
      h('td', {}, endpoint.account ?? 'every account'),
      h('td', {}, endpoint.events === null ? 'every event' : endpoint.events.join(', ')),
      h('td', {}, String(endpoint.backlog)),
      h('td', {}, when(endpoint.oldest_pending_at)),
      h('td', {}, when(endpoint.last_success_at))))))
}

function filterForm(endpoints: readonly WebhookEndpoint[], params: URLSearchParams): HTMLFormElement {
  const endpoint = h('select', { id: 'endpoint', name: 'endpoint' },
    h('option', { value: '' }, 'every endpoint'),
    endpoints.map((e) => h('option', { value: e.id, selected: params.get('endpoint') === e.id }, e.id)))
  const failed = h('input', { id: 'failed', name: 'failed', type: 'checkbox', checked: params.get('failed') === 'true' })
  const form = h('form', { id: 'delivery-filters', class: 'filters', 'aria-label': 'Filter the delivery log' },
    h('div', { class: 'field' }, h('label', { for: 'endpoint' }, 'Endpoint'), endpoint),
    h('div', { class: 'field check' }, failed, h('label', { for: 'failed' }, 'Failed attempts only')),
    h('button', { type: 'submit' }, 'Show'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    // The page size stays what the fragment said (as the orders page keeps it).
    const next = new URLSearchParams(params.has('limit') ? { limit: params.get('limit') ?? '' } : {})
    if (endpoint.value !== '') next.set('endpoint', endpoint.value)
    if (failed.checked) next.set('failed', 'true')
    location.hash = `#/webhooks?${next.toString()}`
  })
  return form
}

/** The log's query from the fragment; what the API refuses (a hand-edited fragment) it says so itself. */
function queryOf(params: URLSearchParams): DeliveryQuery {
  const before = params.get('before')
  const limit = params.get('limit')
  return {
    endpoint: params.get('endpoint') ?? undefined,
    failed: params.get('failed') === 'true' ? 'true' : undefined,
    before: before === null ? undefined : Number(before),
    limit: limit === null ? PAGE_SIZE : Number(limit),
  }
}

function attemptTable(attempts: readonly DeliveryAttempt[]): HTMLElement {
  if (attempts.length === 0) return h('p', {}, 'No delivery attempt matches.')
  return h('table', { class: 'deliveries' },
    h('thead', {}, h('tr', {}, ['At', 'Endpoint', 'Order', 'Event', 'Outcome', 'Status', 'Duration', 'Webhook id', 'Error'].map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, attempts.map((attempt) => h('tr', {},
      h('th', { scope: 'row' }, when(attempt.at)),
      h('td', {}, attempt.endpoint_id),
      h('td', {}, h('a', { href: `#/order?${new URLSearchParams({ id: attempt.order_id, account: attempt.account }).toString()}` }, attempt.order_id),
        h('small', { class: 'reason' }, attempt.account)),
      h('td', {}, `${attempt.event_type} (revision ${attempt.revision})`),
      h('td', {}, h('span', { class: `status outcome-${attempt.outcome}` }, attempt.outcome)),
      h('td', {}, attempt.status === null ? '–' : String(attempt.status)),
      h('td', {}, `${attempt.duration_ms} ms`),
      h('td', { class: 'id' }, attempt.webhook_id),
      h('td', {}, attempt.error ?? '')))))
}

function paging(params: URLSearchParams, nextCursor: string | null): HTMLElement[] {
  const links: HTMLElement[] = []
  if (params.has('before')) {
    const first = new URLSearchParams(params)
    first.delete('before')
    links.push(h('a', { href: `#/webhooks?${first.toString()}` }, 'Newest attempts'))
  }
  if (nextCursor !== null) {
    const next = new URLSearchParams(params)
    next.set('before', nextCursor)
    links.push(h('a', { href: `#/webhooks?${next.toString()}`, rel: 'next' }, 'Older attempts'))
  }
  return links.length === 0 ? [] : [h('nav', { class: 'paging', 'aria-label': 'Pages of the delivery log' }, links)]
}
