import t from 'tap'
import { sign } from 'node:crypto'
import { treeHeadMessage } from '@waybill/merkle'
import { verifyHead } from '../web/verify/head.js'
import { sampleEvents, signedLog } from './signed-log.js'

t.test('a head signed with the log key verifies with WebCrypto Ed25519', async (t) => {
  const log = signedLog(sampleEvents())
  const head = log.head(5)
  t.same(await verifyHead(head, log.key), { ok: true })
  t.same(await verifyHead(log.head(0), log.key), { ok: true }, 'a head of the empty tree too')
})

t.test('a head with any signed field changed, or signed by another key, fails', async (t) => {
  const log = signedLog(sampleEvents())
  const other = signedLog(sampleEvents())
  const head = log.head(5)
  const refused = async (what: string, changed: typeof head, key = log.key) => {
    const check = await verifyHead(changed, key)
    t.equal(check.ok, false, what)
    return check.ok ? '' : check.reason
  }
  t.match(await refused('tree size', { ...head, tree_size: 4 }), /does not verify/)
  t.match(await refused('root', { ...head, root_hash: head.root_hash.replace(/^./, (c) => c === '0' ? '1' : '0') }), /does not verify/)
  t.match(await refused('timestamp', { ...head, timestamp: '2026-11-23T09:00:00.001Z' }), /does not verify/)
  const signature = Buffer.from(head.signature, 'base64')
  signature[10]! ^= 1
  t.match(await refused('signature byte', { ...head, signature: signature.toString('base64') }), /does not verify/)
  t.match(await refused('another key', head, other.key), /signed by key/)
  // Another key's signature under this key's id: the key id matches, the signature does not.
  const forged = sign(null, treeHeadMessage(head), other.privateKey).toString('base64')
  t.match(await refused('forged under our key id', { ...head, signature: forged }), /does not verify/)
  t.match(await refused('not Ed25519', head, { ...log.key, algorithm: 'RSA' as 'Ed25519' }), /not Ed25519/, 'a server that says another algorithm than its schema')
  t.match(await refused('short key', head, { ...log.key, public_key: 'AAAA' }), /32 bytes/)
  t.match(await refused('short signature', { ...head, signature: 'AAAA' }), /64 bytes/)
  t.match(await refused('bad root', { ...head, root_hash: 'xyz' }), /malformed/)
})

t.test('a pinned key id must be the log key\'s', async (t) => {
  const log = signedLog(sampleEvents())
  const head = log.head(5)
  t.same(await verifyHead(head, log.key, log.key.key_id), { ok: true })
  const other = await verifyHead(head, log.key, '0123456789abcdef')
  t.equal(other.ok, false)
  t.match(other.ok ? '' : other.reason, /not the pinned 0123456789abcdef/)
})
