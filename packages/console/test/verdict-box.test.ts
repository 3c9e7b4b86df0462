import t from 'tap'
import { ApiError } from '../web/api.js'
import { eventFields } from '../web/views/timeline.js'
import { fetchVerdict, verdictText } from '../web/views/verdict-box.js'
import { sampleEvents, signedLog } from './signed-log.js'

const A1 = { stream: 'order-acme-A1', orderId: 'A1' }
const notFound = new ApiError({ status: 404, code: 'not_found', title: 'Not Found', detail: 'Route GET:/v1/audit/public-keys not found' })

t.test('a missing proof or public key: no verdict, unless a key id is pinned', async (t) => {
  const log = signedLog(sampleEvents())
  const { history, proof } = log.order('order-acme-A1')
  const noKey = { publicKeys: () => Promise.reject(notFound), proof: () => Promise.resolve(proof) }
  const noProof = { publicKeys: () => Promise.resolve({ keys: [log.key] }), proof: () => Promise.reject(notFound) }
  const answer = { order_id: 'A1', events: history, next_cursor: null, chain: { ok: true as const } }
  t.equal(await fetchVerdict(noKey, 'A1', undefined, answer, A1, undefined), null, 'a server without the audit routes')
  t.equal(await fetchVerdict(noProof, 'A1', undefined, answer, A1, undefined), null)
  t.match(await fetchVerdict(noKey, 'A1', undefined, answer, A1, log.key.key_id), { kind: 'failed', head: null, revision: null, reason: /no public key for the audit log \(404\)/ })
  t.match(await fetchVerdict(noProof, 'A1', undefined, answer, A1, log.key.key_id), { kind: 'failed', revision: null, reason: /no proof for this order \(404\)/ })
  const both = { publicKeys: () => Promise.resolve({ keys: [log.key] }), proof: () => Promise.resolve(proof) }
  t.match(await fetchVerdict(both, 'A1', undefined, answer, A1, log.key.key_id), { kind: 'verified' })
  t.match(await fetchVerdict(both, 'A1', undefined, answer, null, undefined), { kind: 'failed', reason: /account/ }, 'an order the page cannot name')
  const unsigned = { publicKeys: () => Promise.resolve({ keys: [log.key] }), proof: () => Promise.resolve(log.order('order-acme-A1', null).proof) }
  t.match(await fetchVerdict(unsigned, 'A1', undefined, answer, A1, undefined), { kind: 'unsigned' }, 'no head yet is not a failure')
  t.match(await fetchVerdict(unsigned, 'A1', undefined, answer, A1, log.key.key_id), { kind: 'failed', revision: 0, reason: /no signed head/ },
    'with the key pinned, no head for events received days ago is')
})

t.test('the verdict says what the signature covers, and what is the server\'s word', async (t) => {
  const log = signedLog(sampleEvents())
  const head = log.head(5)
  const green = verdictText({ kind: 'verified', head, covered: 3 }, true)
  t.equal(green.tone, 'verified')
  t.notMatch(green.outcome, /exactly as shown/)
  t.match(green.outcome, /Verified in this browser: all 3 event\(s\)/)
  t.match(green.outcome, /event id, stream, revision, type, data \(with the images' sha256\), event date and received time/)
  t.match(green.outcome, /sender's key, request id, state after, hash and previous hash .* not signed/)
  t.match(green.head, /tree size 5, .* \(the key id you pinned\)/)
  const amber = verdictText({ kind: 'partial', head, covered: 2, pending: 1 }, false)
  t.equal(amber.tone, 'partial')
  t.match(amber.outcome, /2 event\(s\) verified against the head of tree size 5; 1 newer event\(s\) not yet covered by a signed head/)
  t.match(verdictText({ kind: 'pending', head, pending: 2 }, false), { tone: 'partial', outcome: /not yet covered/ })
  t.match(verdictText({ kind: 'unsigned', head: null, events: 3 }, false), { tone: 'none', head: null, outcome: /No signed head yet/ })
  t.match(verdictText(null, false), { tone: 'none', outcome: /server's word/ })
  t.match(verdictText({ kind: 'failed', head, revision: 2, reason: 'the event differs from leaf 3 of the log' }, false),
    { tone: 'failed', outcome: 'Not verified: revision 2 fails: the event differs from leaf 3 of the log.' })
})

t.test('the timeline marks the fields the leaf does not cover', async (t) => {
  const event = { ...sampleEvents()[3]!, leaf_index: 3 }
  const fields = Object.fromEntries(eventFields(event).map((field) => [field.term, field.signed]))
  t.same(fields, {
    'Event date': true, Received: true, 'Event id': true, 'Leaf index': true,
    'Sent with key': false, 'Request id': false, Hash: false, 'Previous hash': false,
  })
})
