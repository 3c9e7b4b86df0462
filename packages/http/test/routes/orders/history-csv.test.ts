import t from 'tap'
import { CSV_HEADER, csvRows, csvVerdict } from '../../../src/routes/orders/history-csv.js'

const historyCsv = (events: Parameters<typeof csvRows>[0], chain: Parameters<typeof csvVerdict>[0]): string =>
  `${CSV_HEADER}${csvRows(events)}${csvVerdict(chain)}`

const event = {
  revision: 0, event_id: 'e-1', stream: 'order-acme-A', type: 'OrderAdded', event_date: '2025-03-01T10:00:00Z', received_at: null,
  key_id: 'Key123456789', request_id: '-A1', leaf_index: 0, hash: 'h', prev_hash: null, data: { address: '=HYPERLINK("x")' }, fields: null, erased: false, state_after: {},
}

t.test('a cell a spreadsheet would take for a formula starts with an apostrophe', async (t) => {
  const [, row] = historyCsv([event], { ok: true }).split('\r\n')
  t.match(row, /,'-A1,/, 'a request id that starts with - is no cell reference')
  for (const start of ['=', '+', '-', '@', '\t', '\r']) {
    const [, cells] = historyCsv([{ ...event, request_id: `${start}1+2` }], { ok: true }).split(/\r\n(?=0,)/)
    t.match(cells, start === '\r' ? /,"'\r1\+2",/ : new RegExp(`,'\\${start === '\t' ? 't' : start}1\\+2,`), JSON.stringify(start))
  }
  t.match(row, /,"\{""address"":""=HYPERLINK\(\\?""x\\?""\)""\}",/, 'JSON cells start with { and stay as they are')
})
