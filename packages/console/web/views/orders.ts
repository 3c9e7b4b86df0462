import type { Api, Order, OrderFilters, OrderStatus } from '../api.js'
import { h, show } from '../dom.js'
import type { Session } from '../session.js'

const STATUSES: readonly OrderStatus[] = ['pending', 'in_progress', 'completed', 'canceled']
const FILTERS = ['status', 'customer', 'location', 'updated_since', 'account'] as const
const PAGE_SIZE = 25

/** Where an order's page is: in the fragment, so it is bookmarkable and never sent to the server. */
function orderHref(orderId: string, account: string | undefined): string {
  const params = new URLSearchParams({ id: orderId })
  if (account !== undefined) params.set('account', account)
  return `#/order?${params.toString()}`
}

function field(id: string, label: string, control: HTMLInputElement | HTMLSelectElement, help?: string): HTMLElement {
  if (help !== undefined) control.setAttribute('aria-describedby', `${id}-help`)
  return h('div', { class: 'field' }, h('label', { for: id }, label), control,
    help !== undefined ? h('small', { id: `${id}-help`, class: 'help' }, help) : null)
}

function textInput(id: string, value: string | null, extra: Readonly<Record<string, string>> = {}): HTMLInputElement {
  return h('input', { id, name: id, type: 'text', value: value ?? '', autocomplete: 'off', ...extra })
}

/** The order list: the read API's filters, cursor paging, and go-to-order by id. */
export async function ordersPage(api: Api, session: Session, params: URLSearchParams): Promise<void> {
  const status = h('select', { id: 'status', name: 'status' },
    h('option', { value: '' }, 'any'),
    STATUSES.map((value) => h('option', { value, selected: params.get('status') === value }, value.replace('_', ' '))))
  const filters = h('form', { id: 'filters', class: 'filters', 'aria-labelledby': 'filters-title' },
    h('h2', { id: 'filters-title' }, 'Find orders'),
    field('status', 'Status', status),
    field('customer', 'Customer', textInput('customer', params.get('customer'))),
    field('location', 'Location', textInput('location', params.get('location'))),
    field('updated_since', 'Updated since', textInput('updated_since', params.get('updated_since'), { placeholder: '2025-03-01T00:00:00Z' }), 'UTC, YYYY-MM-DDTHH:MM:SSZ'),
    session.auditor ? field('account', 'Account', textInput('account', params.get('account')), 'Empty: every account') : null,
    h('button', { type: 'submit' }, 'Search'))
  filters.addEventListener('submit', (event) => {
    event.preventDefault()
    // The page size stays as it was; a new search starts at the first page.
    const next = new URLSearchParams(params.has('limit') ? { limit: params.get('limit') ?? '' } : {})
    for (const name of FILTERS) {
      const control = filters.elements.namedItem(name)
      if ((control instanceof HTMLInputElement || control instanceof HTMLSelectElement) && control.value.trim() !== '') next.set(name, control.value.trim())
    }
    location.hash = `#/orders?${next.toString()}`
  })

  const goId = textInput('go-order-id', null, { required: '' })
  const goAccount = session.auditor ? textInput('go-account', null, { required: '' }) : null
  const go = h('form', { id: 'go-to-order', class: 'filters', 'aria-labelledby': 'go-title' },
    h('h2', { id: 'go-title' }, 'Go to an order'),
    field('go-order-id', 'Order id', goId),
    goAccount !== null ? field('go-account', 'Account', goAccount) : null,
    h('button', { type: 'submit' }, 'Open'))
  go.addEventListener('submit', (event) => {
    event.preventDefault()
    if (goId.value === '' || goAccount?.value === '') return
    location.hash = orderHref(goId.value, goAccount?.value)
  })

  const results = h('section', { id: 'results', 'aria-labelledby': 'results-title', 'aria-busy': 'true' },
    h('h2', { id: 'results-title' }, 'Orders'), h('p', {}, 'Loading…'))
  show(h('h1', {}, 'Orders'), h('div', { class: 'search' }, filters, go), results)

  try {
    const page = await api.listOrders(filtersOf(params), session.auditor ? given(params, 'account') : undefined)
    results.replaceChildren(h('h2', { id: 'results-title' }, 'Orders'), ...listing(page.orders, session), ...paging(params, page.next_cursor))
  } catch (error) {
    results.replaceChildren(h('h2', { id: 'results-title' }, 'Orders'), h('p', { role: 'alert', class: 'error' }, messageOf(error)))
  }
  results.setAttribute('aria-busy', 'false')
}

/** A filter or the cursor as the fragment gives it; empty is none. */
function given(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name)
  return value === null || value === '' ? undefined : value
}

/**
 * The list's query from the fragment. A status the API does not know (a fragment edited by hand)
 * is sent as given: the API's answer (400, with its problem detail) is what the page shows, as
 * for any other filter it refuses.
 */
function filtersOf(params: URLSearchParams): OrderFilters {
  const limit = given(params, 'limit')
  return {
    status: given(params, 'status') as OrderStatus | undefined,
    customer: given(params, 'customer'),
    location: given(params, 'location'),
    updated_since: given(params, 'updated_since'),
    limit: limit === undefined ? PAGE_SIZE : Number(limit),
    cursor: given(params, 'cursor'),
  }
}

function listing(orders: readonly Order[], session: Session): HTMLElement[] {
  if (orders.length === 0) return [h('p', {}, 'No order matches these filters.')]
  const head = ['Order', ...(session.auditor ? ['Account'] : []), 'Status', 'Customer', 'Location', 'Updated (event date)']
  return [h('table', { class: 'orders' },
    h('thead', {}, h('tr', {}, head.map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, orders.map((order) => h('tr', {},
      h('th', { scope: 'row' }, h('a', { href: orderHref(order.order_id, session.auditor ? order.account : undefined) }, order.order_id)),
      session.auditor ? h('td', {}, order.account ?? '') : null,
      h('td', {}, h('span', { class: `status status-${order.status}` }, order.status.replace('_', ' '))),
      h('td', {}, order.customer),
      h('td', {}, order.location),
      h('td', {}, h('time', { datetime: order.updated_at }, order.updated_at))))))]
}

function paging(params: URLSearchParams, nextCursor: string | null): HTMLElement[] {
  const links: HTMLElement[] = []
  if (params.has('cursor')) {
    const first = new URLSearchParams(params)
    first.delete('cursor')
    links.push(h('a', { href: `#/orders?${first.toString()}` }, 'First page'))
  }
  if (nextCursor !== null) {
    const next = new URLSearchParams(params)
    next.set('cursor', nextCursor)
    links.push(h('a', { href: `#/orders?${next.toString()}`, rel: 'next' }, 'Next page'))
  }
  return links.length === 0 ? [] : [h('nav', { class: 'paging', 'aria-label': 'Pages' }, links)]
}

export function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'problem' in error) {
    const problem = (error as { problem: { detail: string; code: string } }).problem
    return `${problem.detail} (${problem.code})`
  }
  return `The API could not be reached: ${String(error)}`
}
