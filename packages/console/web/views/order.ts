import { ApiError, type Api } from '../api.js'
import { changesBetween, lag, show as showValue } from '../changes.js'
import { fill, h, show } from '../dom.js'
import { download, historyCsv } from '../history-export.js'
import type { Session } from '../session.js'
import { verifyOrder, type Verdict } from '../verify/verdict.js'
import type { History, HistoryEvent, Order } from '../wire.js'
import { messageOf } from './orders.js'

/** Blob URLs of the images on the page shown last; revoked when another page is shown. */
let imageUrls: string[] = []

/** An order's page: state, images, the verdict, and the timeline of its events. */
export async function orderPage(api: Api, session: Session, params: URLSearchParams): Promise<void> {
  for (const url of imageUrls) URL.revokeObjectURL(url)
  imageUrls = []
  const id = params.get('id') ?? ''
  const account = session.auditor ? params.get('account') ?? undefined : undefined
  show(h('h1', {}, `Order ${id}`), h('p', { 'aria-busy': 'true' }, 'Loading…'))
  let history: History
  try {
    history = await api.history(id, account)
  } catch (error) {
    show(h('h1', {}, `Order ${id}`), h('p', { role: 'alert', class: 'error' },
      error instanceof ApiError && error.problem.code === 'not_found' ? 'No such order for this key (or in this account).' : messageOf(error)))
    return
  }
  const current = await api.order(id, account).catch(() => null)
  const verdictBox = h('section', { id: 'verdict', class: 'verdict verdict-checking', 'aria-labelledby': 'verdict-title', 'aria-live': 'polite' },
    h('h2', { id: 'verdict-title' }, 'Verification'), h('p', {}, 'Checking the history against the signed log…'))
  const timeline = timelineOf(history)
  show(
    h('h1', {}, `Order ${id}`),
    account !== undefined ? h('p', { class: 'account' }, `Account ${account}`) : null,
    verdictBox,
    actions(history, () => verdictBox.dataset['verdict'] ?? null),
    current !== null ? stateSection(current) : null,
    imagesSection(api, history, id, account),
    timeline,
  )
  const verdict = await verdictOf(api, id, account, history, session.pinnedKeyId)
  renderVerdict(verdictBox, verdict, history, session.pinnedKeyId !== undefined)
  if (verdict !== null && verdict.kind === 'failed' && verdict.revision !== null) {
    document.getElementById(`event-${verdict.revision}`)?.classList.add('failed')
  }
}

async function verdictOf(api: Api, id: string, account: string | undefined, history: History, pinnedKeyId: string | undefined): Promise<Verdict | null> {
  try {
    const [key, proof] = await Promise.all([api.publicKey(), api.proof(id, account)])
    return await verifyOrder(history.events, proof, key, pinnedKeyId)
  } catch (error) {
    // A server without the audit log (404 on its routes) or a head not yet signed: no verdict.
    if (error instanceof ApiError && error.problem.status === 404) return null
    return { kind: 'failed', head: null, revision: null, reason: messageOf(error) }
  }
}

function renderVerdict(box: HTMLElement, verdict: Verdict | null, history: History, pinned: boolean): void {
  const title = h('h2', { id: 'verdict-title' }, 'Verification')
  const chain = history.chain === undefined ? null
    : h('p', { class: 'chain' }, history.chain.ok
      ? 'The server reports the stream\'s hash chain intact (its word, not checked here).'
      : `The server reports the stream's hash chain broken at revision ${history.chain.revision}: ${history.chain.reason}.`)
  box.classList.remove('verdict-checking')
  if (verdict === null) {
    box.classList.add('verdict-none')
    box.dataset['verdict'] = 'unavailable'
    fill(box, [title, h('p', {}, 'No signed audit log is available for this order yet: the history below is the server\'s word.'), chain])
    return
  }
  box.dataset['verdict'] = verdict.kind
  const head = verdict.head === null ? null
    : h('p', { class: 'head' }, `Signed tree head: tree size ${verdict.head.tree_size}, signed ${verdict.head.timestamp}, key ${verdict.head.key_id}${pinned ? ' (the key id you pinned)' : ' (not pinned: compare it with the one you know)'}, root ${verdict.head.root_hash.slice(0, 16)}…`)
  if (verdict.kind === 'failed') {
    box.classList.add('verdict-failed')
    fill(box, [title, h('p', { class: 'outcome', role: 'alert' },
      verdict.revision === null ? `Not verified: ${verdict.reason}.` : `Not verified: revision ${verdict.revision} fails: ${verdict.reason}.`), head, chain])
  } else if (verdict.kind === 'pending') {
    box.classList.add('verdict-pending')
    fill(box, [title, h('p', { class: 'outcome' }, `Not yet verifiable: the latest signed head does not cover this order's ${verdict.pending} event(s) yet. Reload in a moment.`), head, chain])
  } else {
    box.classList.add('verdict-verified')
    fill(box, [title, h('p', { class: 'outcome' },
      `Verified in this browser: ${verdict.covered} event(s) are in the signed log exactly as shown` +
      (verdict.pending > 0 ? `; ${verdict.pending} newer event(s) are not yet covered by a signed head.` : '.')), head, chain])
  }
}

function actions(history: History, verdict: () => string | null): HTMLElement {
  const name = `order-${history.account !== undefined ? `${history.account}-` : ''}${history.order_id}`.replace(/[^A-Za-z0-9._-]/g, '_')
  const json = h('button', { type: 'button', id: 'export-json' }, 'Export JSON')
  json.addEventListener('click', () => download(`${name}.json`, 'application/json',
    JSON.stringify({ ...history, verification: verdict(), exported_at: new Date().toISOString() }, null, 2)))
  const csv = h('button', { type: 'button', id: 'export-csv' }, 'Export CSV')
  csv.addEventListener('click', () => download(`${name}.csv`, 'text/csv', historyCsv(history)))
  const print = h('button', { type: 'button', id: 'print' }, 'Print or save as PDF')
  print.addEventListener('click', () => window.print())
  return h('div', { class: 'actions', role: 'group', 'aria-label': 'Export' }, json, csv, print)
}

function stateSection(order: Order): HTMLElement {
  const fields = ['status', 'customer', 'location', 'address', 'delivery_date', 'recipient', 'reason', 'created_at', 'updated_at', 'received_at', 'last_event', 'revision'] as const
  return h('section', { 'aria-labelledby': 'state-title' },
    h('h2', { id: 'state-title' }, 'Current state'),
    h('dl', { class: 'state' }, fields.map((field) => [h('dt', {}, field), h('dd', {}, showValue(order[field]))])))
}

function imagesSection(api: Api, history: History, id: string, account: string | undefined): HTMLElement | null {
  const latest = (name: string): unknown => history.events.findLast((event) => event.data[name] !== undefined)?.data[name]
  const wanted = (['pod', 'signature'] as const).filter((name) => latest(name) !== undefined)
  if (wanted.length === 0) return null
  const section = h('section', { 'aria-labelledby': 'images-title' }, h('h2', { id: 'images-title' }, 'Images'))
  for (const which of wanted) {
    const label = which === 'pod' ? 'Proof of delivery' : 'Signature'
    const img = h('img', { id: `image-${which}`, alt: label })
    const caption = h('figcaption', {}, `${label}: ${showValue(latest(which))}`)
    section.append(h('figure', {}, img, caption))
    void api.image(id, which, account).then((blob) => {
      const url = URL.createObjectURL(blob)
      imageUrls.push(url)
      img.src = url
    }, (error: unknown) => {
      img.replaceWith(h('p', { class: 'error', role: 'alert' }, `${label} could not be loaded: ${messageOf(error)}`))
    })
  }
  return section
}

function timelineOf(history: History): HTMLElement {
  const events = [...history.events].sort((a, b) => a.revision - b.revision)
  return h('section', { 'aria-labelledby': 'timeline-title' },
    h('h2', { id: 'timeline-title' }, `Timeline (${events.length} events)`),
    h('ol', { class: 'timeline' }, events.map((event, i) => eventItem(event, events[i - 1]))))
}

function eventItem(event: HistoryEvent, previous: HistoryEvent | undefined): HTMLElement {
  // The state after each event is the server's fold (state_after); without it, compare the data.
  const changes = event.state_after !== undefined
    ? changesBetween(previous?.state_after, event.state_after)
    : changesBetween(previous?.data, event.data)
  const meta: [string, string][] = [
    ['Event date', event.event_date ?? '—'],
    ['Received', `${event.received_at ?? '—'}${event.received_at !== null && event.event_date !== null ? ` (${lag(event.event_date, event.received_at)})` : ''}`],
    ['Sent with key', event.key_id ?? 'not recorded'],
    ['Request id', event.request_id ?? '—'],
    ['Event id', event.event_id ?? '—'],
    ['Leaf index', event.leaf_index == null ? '—' : String(event.leaf_index)],
    ['Hash', event.hash],
  ]
  return h('li', { id: `event-${event.revision}`, class: 'event' },
    h('article', { 'aria-labelledby': `event-${event.revision}-title` },
      h('h3', { id: `event-${event.revision}-title` }, `Revision ${event.revision}: ${event.type}`),
      h('dl', { class: 'meta' }, meta.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
      h('table', { class: 'changes' },
        h('caption', {}, previous === undefined ? 'Fields set' : 'What changed'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
        h('tbody', {}, changes.map((change) => h('tr', {},
          h('th', { scope: 'row' }, change.field), h('td', {}, showValue(change.before)), h('td', {}, showValue(change.after)))))),
      event.state_after != null
        ? h('div', { class: 'state-after' }, h('h4', {}, 'State after this event'),
          h('dl', { class: 'state' }, Object.entries(event.state_after).map(([field, value]) => [h('dt', {}, field), h('dd', {}, showValue(value))])))
        : null))
}
