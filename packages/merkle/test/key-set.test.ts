import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import t from 'tap'
import { keyIdOf, rawPublicKey, signKeyStatement, signTreeHead, type KeyStatement } from '../src/index.js'
import * as web from '../src/verify/index.js'

const root = 'cd'.repeat(32)
const first = generateKeyPairSync('ed25519').privateKey
const second = generateKeyPairSync('ed25519').privateKey
const third = generateKeyPairSync('ed25519').privateKey
const stranger = generateKeyPairSync('ed25519').privateKey
const id = (key: KeyObject): string => keyIdOf(key)
const publicOf = (key: KeyObject): string => rawPublicKey(key).toString('base64')
const at = (minute: number): Date => new Date(Date.UTC(2026, 10, 23, 9, minute))

/** first -> second (rotated at size 10, 09:10) -> third (second lost, at size 20, 09:20). */
const rotation = signKeyStatement({ oldKeyId: id(first), treeSize: 10, rootHash: root, at: at(10) }, second, first)
const replacement = signKeyStatement({ oldKeyId: id(second), treeSize: 20, rootHash: root, at: at(20) }, third, null)
const set: web.AuditKey[] = [
  { key_id: id(first), public_key: publicOf(first), replaces: null },
  { key_id: id(second), public_key: publicOf(second), replaces: rotation },
  { key_id: id(third), public_key: publicOf(third), replaces: replacement },
]
const check = (keys: readonly web.AuditKey[], anchors: readonly string[] | null) => web.checkKeySet(keys, anchors, web.subtleSha256)

t.test('a statement is signed by the new key over the contract\'s text, and by the old one when it rotates', async (t) => {
  t.equal(rotation.kind, 'rotated')
  t.equal(replacement.kind, 'lost')
  t.equal(replacement.endorsement, null)
  const text = `waybill-key-statement/v1\nrotated\n${id(first)}\n${id(second)}\n${publicOf(second)}\n10\n${root}\n2026-11-23T09:10:00.000Z\n`
  t.equal(new TextDecoder().decode(web.keyStatementMessage(rotation)), text)
  t.equal(rotation.signature, sign(null, Buffer.from(text), second).toString('base64'), 'Ed25519 is deterministic: the same bytes, the same signature')
  t.equal(rotation.endorsement, sign(null, Buffer.from(text), first).toString('base64'))
  t.throws(() => signKeyStatement({ oldKeyId: id(third), treeSize: 10, rootHash: root, at: at(10) }, second, first), /the old key is/)
  t.throws(() => signKeyStatement({ oldKeyId: id(first), treeSize: -1, rootHash: root, at: at(10) }, second, first), /not a place in the log/)
})

t.test('with no anchor every sound key is believed, each with its validity', async (t) => {
  const checked = await check(set, null)
  t.same(checked.problems, [])
  t.same([...checked.trusted.keys()], [id(first), id(second), id(third)])
  t.same(checked.trusted.get(id(first))?.validity, { from: null, until: { tree_size: 10, timestamp: '2026-11-23T09:10:00.000Z' } })
  t.same(checked.trusted.get(id(second))?.validity, { from: { tree_size: 10, timestamp: '2026-11-23T09:10:00.000Z' }, until: { tree_size: 20, timestamp: '2026-11-23T09:20:00.000Z' } })
  t.same(checked.trusted.get(id(third))?.validity, { from: { tree_size: 20, timestamp: '2026-11-23T09:20:00.000Z' }, until: null })
})

t.test('a pinned key vouches for the key it rotated to, not for one that replaced a lost key', async (t) => {
  const fromFirst = await check(set, [id(first)])
  t.same([...fromFirst.trusted.keys()], [id(first), id(second)])
  t.match(fromFirst.untrusted.get(id(third)), new RegExp(`replaced key ${id(second)}, declared lost at tree size 20 .*confirm it out of band and pin it`))
  const fromSecond = await check(set, [id(second)])
  t.same([...fromSecond.trusted.keys()], [id(second)], 'trust runs forward only')
  t.equal(fromSecond.untrusted.get(id(first)), 'no key you trust vouches for it')
  const both = await check(set, [id(first), id(third), 'ffffffffffffffff'])
  t.same([...both.trusted.keys()].sort(), [id(first), id(second), id(third)].sort(), 'pinning the new key too; an unknown anchor is ignored')
})

t.test('a set that does not hold together says what is wrong, and the keys it concerns are not believed', async (t) => {
  const tamper = async (key: Partial<web.AuditKey>, statement: Partial<KeyStatement> = {}, index = 1) => {
    const keys = set.map((k, i) => i !== index ? k : { ...k, ...key, replaces: k.replaces === null ? null : { ...k.replaces, ...statement } })
    const checked = await check(keys, null)
    return { problems: checked.problems, trusted: [...checked.trusted.keys()] }
  }
  t.match((await tamper({ public_key: 'AAAA' })).problems, [/its public key is not 32 bytes of base64/])
  t.match((await tamper({ public_key: 7 as unknown as string })).problems, [/its public key is not 32 bytes of base64/])
  t.match((await tamper({ public_key: publicOf(stranger) })).problems, [new RegExp(`key ${id(second)}: its public key has id ${id(stranger)}`)])
  t.match((await tamper({}, { tree_size: 11 })).problems, [/its key statement is not signed by it/])
  t.match((await tamper({}, { timestamp: 'yesterday' })).problems, [/malformed or names another key/])
  t.match((await tamper({}, { kind: 'stolen' as 'lost' })).problems, [/malformed or names another key/])
  t.match((await tamper({}, { old_key_id: 5 as unknown as string })).problems, [/malformed or names another key/])
  t.match((await tamper({}, { new_key_id: id(third) })).problems, [/malformed or names another key/])
  t.match((await tamper({}, { new_public_key: publicOf(third) })).problems, [/malformed or names another key/])
  t.match((await tamper({}, { signature: 'AAAA' })).problems, [/not signed by it/])
  t.match((await tamper({}, { signature: null as unknown as string })).problems, [/not signed by it/])
  const badEndorsement = await tamper({}, { endorsement: sign(null, web.keyStatementMessage(rotation), stranger).toString('base64') })
  t.match(badEndorsement.problems, [new RegExp(`its key statement is not endorsed by key ${id(first)}`)])
  t.notOk(badEndorsement.trusted.includes(id(second)) && badEndorsement.problems.length === 0)
  t.match((await tamper({}, { endorsement: 'AAAA' }, 2)).problems, [/says the old key was lost, yet carries an endorsement/])
  const orphan = await check([set[1] as web.AuditKey], null)
  t.match(orphan.problems, [new RegExp(`names key ${id(first)}, which is not among the log's keys`)])
  // A second key that claims to replace `first` as well.
  const rival = signKeyStatement({ oldKeyId: id(first), treeSize: 12, rootHash: root, at: at(12) }, stranger, first)
  const twice = await check([...set, { key_id: id(stranger), public_key: publicOf(stranger), replaces: rival }], null)
  t.match(twice.problems, [new RegExp(`key ${id(first)} is said to be replaced twice \\(by ${id(second)} and ${id(stranger)}\\)`)])
})

t.test('a head is checked against the key it names, within that key\'s validity', async (t) => {
  const checked = await check(set, [id(first)])
  const reason = async (head: Parameters<typeof web.checkHeadKey>[0]) => {
    const verdict = await web.checkHeadKey(head, checked, web.subtleSha256)
    return verdict.ok ? 'ok' : verdict.reason
  }
  t.equal(await reason(signTreeHead(first, 8, root, at(5))), 'ok')
  t.equal(await reason(signTreeHead(first, 10, root, at(10))), 'ok', 'the old key\'s last head, at the rotation')
  t.equal(await reason(signTreeHead(second, 10, root, at(10))), 'ok', 'and the new key\'s first, at the same size')
  t.match(await reason(signTreeHead(first, 11, root, at(9))), /signed by key .* after that key was retired \(tree size 10, 2026-11-23T09:10:00.000Z\)/)
  t.match(await reason(signTreeHead(first, 9, root, at(11))), /after that key was retired/)
  t.match(await reason(signTreeHead(second, 9, root, at(15))), /before that key took over \(tree size 10/)
  t.match(await reason(signTreeHead(second, 15, root, at(9))), /before that key took over/)
  t.match(await reason(signTreeHead(third, 25, root, at(25))), /signed by key .*: it replaced key .* declared lost/)
  t.match(await reason(signTreeHead(stranger, 25, root, at(25))), new RegExp(`names key ${id(stranger)}, which is not among the log's keys`))
  t.equal(await reason({ ...signTreeHead(second, 15, root, at(15)), tree_size: 16 }), 'the head signature does not verify against the public key')
  t.equal(await reason({ ...signTreeHead(second, 15, root, at(15)), timestamp: 'now' }), 'the head is malformed')
})
