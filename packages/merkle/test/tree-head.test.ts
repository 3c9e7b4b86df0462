import { createHash, generateKeyPairSync, verify } from 'node:crypto'
import t from 'tap'
import { keyIdOf, parseTreeHead, rawPublicKey, signTreeHead, treeHeadMessage, verifyTreeHead, type SignedTreeHead } from '../src/index.js'
import * as web from '../src/verify/index.js'

const { privateKey, publicKey } = generateKeyPairSync('ed25519')
const other = generateKeyPairSync('ed25519')
const root = 'ab'.repeat(32)
const at = new Date('2026-11-23T09:00:00.000Z')

t.test('the signed message is the contract\'s text, and the signature is Ed25519 over it', async (t) => {
  const head = signTreeHead(privateKey, 12, root, at)
  t.same(Object.keys(head), ['tree_size', 'root_hash', 'timestamp', 'signature', 'key_id'])
  t.equal(head.timestamp, '2026-11-23T09:00:00.000Z')
  t.equal(treeHeadMessage(head).toString('utf8'), `waybill-tree-head/v1\n12\n${root}\n2026-11-23T09:00:00.000Z\n`)
  const signature = Buffer.from(head.signature, 'base64')
  t.equal(signature.length, 64)
  t.ok(verify(null, Buffer.from(`waybill-tree-head/v1\n12\n${root}\n2026-11-23T09:00:00.000Z\n`), publicKey, signature), 'checked by node:crypto directly')
  t.ok(verifyTreeHead(head, publicKey))
  t.ok(verifyTreeHead(head, privateKey), 'a private key verifies through its public half')
  t.same(web.treeHeadMessage(head), new Uint8Array(treeHeadMessage(head)), 'the browser entry signs the same bytes')
  t.same(await web.verifyTreeHead(head, new Uint8Array(rawPublicKey(publicKey)), web.subtleSha256), { ok: true }, 'and verifies with WebCrypto')
})

t.test('the key id is the first 16 hex of sha256 over the raw 32-byte public key', async (t) => {
  const raw = rawPublicKey(publicKey)
  t.equal(raw.length, 32)
  t.same(rawPublicKey(privateKey), raw)
  t.equal(keyIdOf(publicKey), createHash('sha256').update(raw).digest('hex').slice(0, 16))
  t.equal(signTreeHead(privateKey, 0, root, at).key_id, keyIdOf(publicKey))
  t.equal(await web.keyIdOf(raw, web.subtleSha256), keyIdOf(publicKey), 'the browser entry, with WebCrypto')
  t.throws(() => rawPublicKey(generateKeyPairSync('x25519').publicKey), /not an Ed25519 key/)
})

t.test('a head fails when any field, any byte of the signature, or the key changes', async (t) => {
  const head = signTreeHead(privateKey, 12, root, at)
  const changed: SignedTreeHead[] = [
    { ...head, tree_size: 13 },
    { ...head, tree_size: 11 },
    { ...head, root_hash: 'ab'.repeat(31) + 'ac' },
    { ...head, timestamp: '2026-11-23T09:00:00.001Z' },
    { ...head, key_id: keyIdOf(other.publicKey) },
    { ...head, signature: head.signature.replace(/=+$/, '') },
    { ...head, signature: `${head.signature}AA==` },
    { ...head, tree_size: -1 },
    { ...head, tree_size: 1.5 },
    { ...head, root_hash: root.toUpperCase() },
    { ...head, timestamp: '2026-11-23T09:00:00Z' },
  ]
  const signature = Buffer.from(head.signature, 'base64')
  for (let byte = 0; byte < 64; byte += 1) {
    const copy = Buffer.from(signature)
    copy[byte] = (copy[byte] ?? 0) ^ 0x01
    changed.push({ ...head, signature: copy.toString('base64') })
  }
  const raw = new Uint8Array(rawPublicKey(publicKey))
  for (const bad of changed) {
    t.notOk(verifyTreeHead(bad, publicKey), JSON.stringify(bad).slice(0, 80))
    t.equal((await web.verifyTreeHead(bad, raw, web.subtleSha256)).ok, false, `browser entry: ${JSON.stringify(bad).slice(0, 60)}`)
  }
  t.notOk(verifyTreeHead(head, other.publicKey), 'another key')
  t.notOk(verifyTreeHead({ ...head, signature: null } as unknown as SignedTreeHead, publicKey))
  // The browser entry says why: the auditor reads it in the verdict.
  const reason = async (changedHead: SignedTreeHead, key = raw) => {
    const check = await web.verifyTreeHead(changedHead, key, web.subtleSha256)
    return check.ok ? 'verified' : check.reason
  }
  t.equal(await reason(head, new Uint8Array(rawPublicKey(other.publicKey))), `the head was signed by key ${head.key_id}, not by the log's public key`)
  t.equal(await reason({ ...head, tree_size: 13 }), 'the head signature does not verify against the public key')
  t.equal(await reason({ ...head, root_hash: 'xyz' }), 'the head is malformed')
  t.equal(await reason({ ...head, timestamp: '2026-11-23T09:00:00Z' }), 'the head is malformed')
  t.equal(await reason({ ...head, signature: 'AAAA' }), 'the head signature is not 64 bytes of base64')
  t.equal(await reason({ ...head, signature: null } as unknown as SignedTreeHead), 'the head signature is not 64 bytes of base64')
  t.equal(await reason(head, raw.subarray(1)), 'the public key is not 32 bytes')
  t.throws(() => signTreeHead(privateKey, -1, root, at), RangeError)
  t.throws(() => signTreeHead(privateKey, 1, 'nope', at), RangeError)
})

t.test('parseTreeHead takes a head read from outside, or null', async (t) => {
  const head = signTreeHead(privateKey, 3, root, at)
  t.same(parseTreeHead(JSON.parse(JSON.stringify({ ...head, extra: 1 }))), head, 'only the head\'s members are kept')
  for (const bad of [null, 'x', 1, {}, { ...head, tree_size: '3' }, { ...head, root_hash: 1 }, { ...head, timestamp: null },
    { ...head, signature: 1 }, { ...head, key_id: 1 }, { ...head, root_hash: 'zz' }]) {
    t.equal(parseTreeHead(bad), null, JSON.stringify(bad).slice(0, 60))
  }
  t.ok(web.isWellFormedHead(head), 'the browser entry reads heads by the same rule')
  t.notOk(web.isWellFormedHead({ ...head, tree_size: Number.MAX_SAFE_INTEGER + 1 }))
})
