import t from 'tap'
import * as web from '../../src/verify/index.js'
import { H_LEAF, MTH } from '../rfc9162-reference.js'
import { WEB_ENTRY, WEB_ENTRY_NODE_HASH } from '../entries.js'
import { refusesChangedProofs, refusesOutOfBounds, verifiesEveryProof } from '../verifier-suite.js'

// The browser entry against the same vectors as the Node.js entry (merkle.test.ts).
t.test('leaf and node hashes are RFC 9162 §2.1.1 with WebCrypto', async (t) => {
  t.same(await web.leafHash(Buffer.from('abc'), web.subtleSha256), H_LEAF(Buffer.from('abc')))
  t.same(await web.leafHash(new Uint8Array(0), web.subtleSha256), H_LEAF(new Uint8Array(0)), 'the empty leaf is not the empty tree')
  const [a, b] = [H_LEAF(Buffer.from('a')), H_LEAF(Buffer.from('b'))]
  t.same(await web.nodeHash(a, b, web.subtleSha256), MTH([Buffer.from('a'), Buffer.from('b')]))
})

verifiesEveryProof(t, WEB_ENTRY)
refusesOutOfBounds(t, WEB_ENTRY)
refusesChangedProofs(t, WEB_ENTRY_NODE_HASH)
