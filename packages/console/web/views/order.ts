import { ApiError, type Api, type History, type Order } from '../api.js'
import { show as showValue } from '../changes.js'
import { h, show, stillShown } from '../dom.js'
import { download } from '../download.js'
import type { Session } from '../session.js'
import { withImageFailures } from '../verify/images.js'
import { orderStream } from '../verify/verdict.js'
import { imagesSection, revokeImages } from './images.js'
import { messageOf } from './orders.js'
import { timelineOf, UNSIGNED } from './timeline.js'
import { fetchVerdict, renderVerdict } from './verdict-box.js'

/** An order's page: state, images, the verdict, and the timeline of its events. */
export async function orderPage(api: Api, session: Session, params: URLSearchParams): Promise<void> {
  revokeImages()
  const current = stillShown()
  const id = params.get('id') ?? ''
  const account = session.auditor ? params.get('account') ?? undefined : undefined
  // The order's account as this page knows it (the key's own, or the one the auditor named), never
  // as the server's answers say: the verdict must be about the order asked for.
  const orderAccount = session.auditor ? account : session.account
  const expected = orderAccount === undefined ? null : { stream: orderStream(orderAccount, id), orderId: id }
  show(h('h1', {}, `Order ${id}`), h('p', { 'aria-busy': 'true' }, 'Loading…'))
  let history: History
  try {
    history = await api.history(id, account)
  } catch (error) {
    if (!current()) return
    show(h('h1', {}, `Order ${id}`), h('p', { role: 'alert', class: 'error' },
      error instanceof ApiError && error.problem.code === 'not_found' ? 'No such order for this key (or in this account).' : messageOf(error)))
    return
  }
  const state = await api.order(id, account).catch(() => null)
  if (!current()) return
  const verdictBox = h('section', { id: 'verdict', class: 'verdict verdict-checking', 'aria-labelledby': 'verdict-title', 'aria-live': 'polite' },
    h('h2', { id: 'verdict-title' }, 'Verification'), h('p', {}, 'Checking the history and its images against the signed log…'))
  const images = imagesSection(api, history, id, account)
  show(
    h('h1', {}, `Order ${id}`),
    account !== undefined ? h('p', { class: 'account' }, `Account ${account}`) : null,
    verdictBox,
    actions(history, () => verdictBox.dataset['verdict'] ?? null, () => api.historyCsv(id, account)),
    state !== null ? stateSection(state) : null,
    images.section,
    timelineOf(history),
  )
  const [verdict, imageFailures] = await Promise.all([fetchVerdict(api, id, account, history, expected, session.pinnedKeyId), images.checked])
  if (!current()) return
  const final = withImageFailures(verdict, imageFailures)
  renderVerdict(verdictBox, final, history, session.pinnedKeyId !== undefined)
  if (final !== null && final.kind === 'failed' && final.revision !== null) {
    document.getElementById(`event-${final.revision}`)?.classList.add('failed')
  }
}

function actions(history: History, verdict: () => string | null, csvText: () => Promise<string>): HTMLElement {
  const name = `order-${history.account !== undefined ? `${history.account}-` : ''}${history.order_id}`.replace(/[^A-Za-z0-9._-]/g, '_')
  const json = h('button', { type: 'button', id: 'export-json' }, 'Export JSON')
  json.addEventListener('click', () => download(`${name}.json`, 'application/json',
    JSON.stringify({ ...history, verification: verdict(), exported_at: new Date().toISOString() }, null, 2)))
  const csv = h('button', { type: 'button', id: 'export-csv' }, 'Export CSV')
  // The server's own CSV of the history (one writer of the format, with its formula guard).
  csv.addEventListener('click', () => void csvText().then((text) => { download(`${name}.csv`, 'text/csv', text) }))
  const print = h('button', { type: 'button', id: 'print' }, 'Print or save as PDF')
  print.addEventListener('click', () => window.print())
  return h('div', { class: 'actions', role: 'group', 'aria-label': 'Export' }, json, csv, print)
}

const PERSONAL = new Set<string>(['customer', 'location', 'address', 'recipient', 'reason'])

function stateSection(order: Order): HTMLElement {
  const fields = ['status', 'customer', 'location', 'address', 'delivery_date', 'recipient', 'reason', 'created_at', 'updated_at', 'received_at', 'last_event', 'revision'] as const
  const erased = (field: string): boolean => order.erased_at !== null && PERSONAL.has(field) && order[field as keyof Order] === null
  return h('section', { 'aria-labelledby': 'state-title' },
    h('h2', { id: 'state-title' }, 'Current state ', h('small', { class: 'unsigned' }, UNSIGNED)),
    order.erased_at === null ? null : h('p', { class: 'erased-note', role: 'note' },
      `This order's personal data was erased at ${order.erased_at}. Its events, their hashes and their leaves are unchanged: the verdict still covers them, sealed.`),
    h('p', { class: 'help' }, 'The read model\'s row for this order, as the server keeps it; the events below are what the log signs.'),
    h('dl', { class: 'state' }, fields.map((field) => [h('dt', {}, field), h('dd', erased(field) ? { class: 'erased' } : {}, erased(field) ? 'erased' : showValue(order[field]))])))
}
