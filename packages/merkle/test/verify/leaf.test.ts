import t from 'tap'
import { leafText as nodeLeafText } from '../../src/index.js'
import { leafBytes, leafText, type LeafFields } from '../../src/verify/index.js'

// An entry of the order history (GET /v1/orders/{order_id}/events), with the members a leaf leaves out.
const entry = {
  event_id: '00000000-0000-5000-8000-000000000003', stream: 'order-sandbox-A-1', revision: 1, type: 'OrderCompleted',
  data: { recipient: 'Zoë', order_id: 'A-1', pod: { sha256: 'ab'.repeat(32), media_type: 'image/png', bytes: 68 }, event_date: '2025-05-02T00:00:00Z' },
  event_date: '2025-05-02T00:00:00Z', received_at: '2025-05-01T00:00:00.000Z',
  hash: 'h', prev_hash: null, key_id: 'k', request_id: 'r', leaf_index: 3, state_after: { status: 'completed' },
}

t.test('the leaf is the canonical JSON of the seven fields, as docs/audit.md#leaves writes it', async (t) => {
  t.equal(leafText(entry),
    '{"data":{"event_date":"2025-05-02T00:00:00Z","order_id":"A-1","pod":{"bytes":68,"media_type":"image/png","sha256":"' + 'ab'.repeat(32) + '"},"recipient":"Zoë"},' +
    '"event_date":"2025-05-02T00:00:00Z","event_id":"00000000-0000-5000-8000-000000000003","received_at":"2025-05-01T00:00:00.000Z",' +
    '"revision":1,"stream":"order-sandbox-A-1","type":"OrderCompleted"}')
  t.same(leafBytes(entry), new TextEncoder().encode(leafText(entry)), 'its bytes are the text\'s UTF-8')
  t.equal(Buffer.from(leafBytes(entry)).toString('utf8'), leafText(entry))
  t.equal(nodeLeafText, leafText, 'the Node.js entry exports the same definition')
})

t.test('every one of the seven fields is in the leaf, and nothing else', async (t) => {
  const base: LeafFields = entry
  const changed: Array<[string, LeafFields]> = [
    ['event_id', { ...base, event_id: '00000000-0000-5000-8000-000000000004' }],
    ['stream', { ...base, stream: 'order-sandbox-A-2' }],
    ['revision', { ...base, revision: 2 }],
    ['type', { ...base, type: 'OrderUpdated' }],
    ['data', { ...base, data: { ...base.data, recipient: 'Zoe' } }],
    ['event_date', { ...base, event_date: null }],
    ['received_at', { ...base, received_at: null }],
  ]
  for (const [field, event] of changed) t.not(leafText(event), leafText(base), `${field} changes the leaf`)
  const otherwise = { ...entry, hash: 'other', state_after: {}, leaf_index: 9 }
  t.equal(leafText(otherwise), leafText(entry), 'the history\'s other members do not')
  t.match(leafText({ ...base, event_date: null, received_at: null }), /"event_date":null,.*"received_at":null,/, 'absent times are null')
})
