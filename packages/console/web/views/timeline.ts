import { changesBetween, lag, show as showValue } from '../changes.js'
import { h } from '../dom.js'
import type { History, HistoryEvent } from '../api.js'

/** The note beside what the signed leaf does not cover (docs/audit.md#leaves): the verdict says nothing of it. */
export const UNSIGNED = '(server\'s record, not signed)'

export interface EventField {
  readonly term: string
  readonly value: string
  /** In the event's leaf (or, for the leaf index, what its inclusion proof is checked at); false: the server's word only. */
  readonly signed: boolean
}

/** An event's facts as the timeline lists them, each with whether the signed log covers it. */
export function eventFields(event: HistoryEvent): EventField[] {
  const received = `${event.received_at ?? '—'}${event.received_at !== null && event.event_date !== null ? ` (${lag(event.event_date, event.received_at)})` : ''}`
  return [
    { term: 'Event date', value: event.event_date ?? '—', signed: true },
    { term: 'Received', value: received, signed: true },
    { term: 'Sent with key', value: event.key_id ?? 'not recorded', signed: false },
    { term: 'Request id', value: event.request_id ?? '—', signed: false },
    { term: 'Event id', value: event.event_id, signed: true },
    { term: 'Leaf index', value: event.leaf_index == null ? '—' : String(event.leaf_index), signed: true },
    { term: 'Hash', value: event.hash, signed: false },
    { term: 'Previous hash', value: event.prev_hash ?? '—', signed: false },
  ]
}

function unsigned(): HTMLElement {
  return h('small', { class: 'unsigned' }, UNSIGNED)
}

export function timelineOf(history: History): HTMLElement {
  const events = [...history.events].sort((a, b) => a.revision - b.revision)
  return h('section', { 'aria-labelledby': 'timeline-title' },
    h('h2', { id: 'timeline-title' }, `Timeline (${events.length} events)`),
    h('p', { class: 'help' }, `Each event's type, revision, data, event id, event date and received time are in its signed leaf. What is marked ${UNSIGNED} is not: the verdict says nothing of it.`),
    h('ol', { class: 'timeline' }, events.map((event, i) => eventItem(event, events[i - 1]))))
}

/** The event's fields as sent, opened by the server; each personal one erased is marked so. */
function fieldsOf(event: HistoryEvent): HTMLElement | null {
  if (event.fields === null) return null
  const erased = (value: unknown): boolean => event.erased && value === null
  return h('div', { class: 'fields' }, h('h4', {}, 'Fields as sent ', event.erased ? h('span', { class: 'erased-badge' }, 'personal data erased') : null, ' ', unsigned()),
    h('dl', { class: 'state' }, Object.entries(event.fields).map(([field, value]) =>
      [h('dt', {}, field), h('dd', erased(value) ? { class: 'erased' } : {}, erased(value) ? 'erased' : showValue(value))])))
}

function eventItem(event: HistoryEvent, previous: HistoryEvent | undefined): HTMLElement {
  // What changed is read from the server's fold (state_after), which is not signed.
  const changes = changesBetween(previous?.state_after, event.state_after)
  return h('li', { id: `event-${event.revision}`, class: event.erased ? 'event erased-event' : 'event' },
    h('article', { 'aria-labelledby': `event-${event.revision}-title` },
      h('h3', { id: `event-${event.revision}-title` }, `Revision ${event.revision}: ${event.type}`),
      h('dl', { class: 'meta' }, eventFields(event).map(({ term, value, signed }) =>
        [h('dt', {}, term), h('dd', {}, value, signed ? null : [' ', unsigned()])])),
      h('table', { class: 'changes' },
        h('caption', {}, previous === undefined ? 'Fields set' : 'What changed', ' ', unsigned()),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
        h('tbody', {}, changes.map((change) => h('tr', {},
          h('th', { scope: 'row' }, change.field), h('td', {}, showValue(change.before)), h('td', {}, showValue(change.after)))))),
      fieldsOf(event),
      h('details', { class: 'data' }, h('summary', {}, 'The event\'s data as stored (in its signed leaf)'),
        h('dl', { class: 'state' }, Object.entries(event.data).map(([field, value]) => [h('dt', {}, field), h('dd', {}, showValue(value))]))),
      h('div', { class: 'state-after' }, h('h4', {}, 'State after this event ', unsigned()),
        h('dl', { class: 'state' }, Object.entries(event.state_after ?? {}).map(([field, value]) => [h('dt', {}, field), h('dd', {}, showValue(value))])))))
}
