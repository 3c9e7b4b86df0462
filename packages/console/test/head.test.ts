import t from 'tap'
import { generateKeyPairSync, sign } from 'node:crypto'
import { keyIdOf, rawPublicKey, signKeyStatement, signTreeHead, treeHeadMessage } from '@waybill/merkle'
import type { LogKey } from '../web/api.js'
import { verifyHead } from '../web/verify/head.js'
import { sampleEvents, signedLog } from './signed-log.js'

t.test('a head signed with the log key verifies with WebCrypto Ed25519', async (t) => {
  const log = signedLog(sampleEvents())
  const head = log.head(5)
  t.same(await verifyHead(head, [log.key]), { ok: true })
  t.same(await verifyHead(log.head(0), [log.key]), { ok: true }, 'a head of the empty tree too')
})

t.test('a head with any signed field changed, or signed by another key, fails', async (t) => {
  const log = signedLog(sampleEvents())
  const other = signedLog(sampleEvents())
  const head = log.head(5)
  const refused = async (what: string, changed: typeof head, key = log.key) => {
    const check = await verifyHead(changed, [key])
    t.equal(check.ok, false, what)
    return check.ok ? '' : check.reason
  }
  t.match(await refused('tree size', { ...head, tree_size: 4 }), /does not verify/)
  t.match(await refused('root', { ...head, root_hash: head.root_hash.replace(/^./, (c) => c === '0' ? '1' : '0') }), /does not verify/)
  t.match(await refused('timestamp', { ...head, timestamp: '2026-11-23T09:00:00.001Z' }), /does not verify/)
  const signature = Buffer.from(head.signature, 'base64')
  signature[10]! ^= 1
  t.match(await refused('signature byte', { ...head, signature: signature.toString('base64') }), /does not verify/)
  t.match(await refused('another key', head, other.key), /names key [0-9a-f]{16}, which is not among the log's keys/)
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
  t.same(await verifyHead(head, [log.key], log.key.key_id), { ok: true })
  const other = await verifyHead(head, [log.key], '0123456789abcdef')
  t.equal(other.ok, false)
  t.match(other.ok ? '' : other.reason, /do not include the pinned 0123456789abcdef/)
})

t.test('after a rotation a head is checked against the key it names: the pinned old key vouches for the new; a lost key\'s successor must be pinned', async (t) => {
  const log = signedLog(sampleEvents())
  const { privateKey: next, publicKey: nextPublic } = generateKeyPairSync('ed25519')
  const rotatedAt = new Date('2026-11-23T08:06:00.000Z')
  const change = { oldKeyId: log.key.key_id, treeSize: 3, rootHash: log.head(3).root_hash, at: rotatedAt }
  const rotation = signKeyStatement(change, next, log.privateKey)
  const nextKey: LogKey = {
    algorithm: 'Ed25519', public_key: rawPublicKey(nextPublic).toString('base64'), public_key_pem: nextPublic.export({ format: 'pem', type: 'spki' }).toString(),
    key_id: keyIdOf(nextPublic), status: 'current', valid_from: rotation.timestamp, valid_until: null, replaces: rotation,
  }
  const retired: LogKey = { ...log.key, status: 'retired', valid_until: rotation.timestamp }
  const head = signTreeHead(next, 5, log.head(5).root_hash, new Date('2026-11-23T08:07:00.000Z'))
  t.same(await verifyHead(head, [retired, nextKey], log.key.key_id), { ok: true }, 'pinned before the rotation')
  t.same(await verifyHead(head, [retired, nextKey]), { ok: true }, 'not pinned')
  t.same(await verifyHead(log.head(3, '2026-11-23T08:05:00.000Z'), [retired, nextKey], log.key.key_id), { ok: true }, 'the old key\'s heads up to the rotation')
  const late = await verifyHead(log.head(5, '2026-11-23T08:07:00.000Z'), [retired, nextKey], log.key.key_id)
  t.match(late, { ok: false, reason: /after that key was retired \(tree size 3, 2026-11-23T08:06:00.000Z\)/ }, 'a head of the retired key past its rotation')
  const lost: LogKey = { ...nextKey, replaces: signKeyStatement(change, next, null) }
  t.match(await verifyHead(head, [retired, lost], log.key.key_id), { ok: false, reason: /declared lost at tree size 3/ })
  t.same(await verifyHead(head, [retired, lost], lost.key_id), { ok: true }, 'pinned itself, after the auditor confirmed it')
  const broken: LogKey = { ...nextKey, replaces: { ...rotation, tree_size: 4 } }
  t.match(await verifyHead(head, [retired, broken]), { ok: false, reason: /key set does not hold together: .*not signed by it/ })
  t.match(await verifyHead(head, [retired, { ...nextKey, algorithm: 'ECDSA' as 'Ed25519' }]), { ok: false, reason: /is ECDSA, not Ed25519/ })
})
