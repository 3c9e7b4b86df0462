import { generateKeyPairSync, verify } from 'node:crypto'
import t from 'tap'
import { keyIdOf, sealStatementMessage, signSealStatement, verifySealStatement, type SealStatement } from '../src/index.js'

const { privateKey, publicKey } = generateKeyPairSync('ed25519')
const other = generateKeyPairSync('ed25519')
const facts = {
  old_tree_size: 60, old_root_hash: 'ab'.repeat(32), new_tree_size: 60, new_root_hash: 'cd'.repeat(32),
  at: new Date('2026-11-27T14:00:00.000Z'), reason: 'sealing\nticket 7', requested_by: 'ops "night"',
}

t.test('the signed message is the documented text, the free texts as JSON strings, and the signature Ed25519 over it', async (t) => {
  const statement = signSealStatement(privateKey, facts)
  const text = `waybill-seal-statement/v1\n60\n${'ab'.repeat(32)}\n60\n${'cd'.repeat(32)}\n2026-11-27T14:00:00.000Z\n${keyIdOf(publicKey)}\n` +
    '"sealing\\nticket 7"\n"ops \\"night\\""\n'
  t.equal(sealStatementMessage(statement).toString('utf8'), text)
  t.equal(statement.key_id, keyIdOf(publicKey))
  t.equal(statement.timestamp, '2026-11-27T14:00:00.000Z')
  t.ok(verify(null, Buffer.from(text), publicKey, Buffer.from(statement.signature, 'base64')), 'checked by node:crypto directly')
  t.ok(verifySealStatement(statement, publicKey))
  t.ok(verifySealStatement(statement, privateKey), 'a private key verifies through its public half')
})

t.test('a statement fails when any field, the signature or the key changes, and a malformed one is refused', async (t) => {
  const statement = signSealStatement(privateKey, facts)
  const changed: SealStatement[] = [
    { ...statement, old_tree_size: 59 },
    { ...statement, old_root_hash: 'ab'.repeat(31) + 'ac' },
    { ...statement, new_tree_size: 61 },
    { ...statement, new_root_hash: 'cd'.repeat(31) + 'ce' },
    { ...statement, timestamp: '2026-11-27T14:00:00.001Z' },
    { ...statement, reason: 'another reason' },
    { ...statement, requested_by: 'someone else' },
    { ...statement, signature: Buffer.alloc(64).toString('base64') },
    { ...statement, signature: 'c2hvcnQ=' },
    { ...statement, signature: 7 as unknown as string },
    { ...statement, old_root_hash: 'not hex' },
    { ...statement, new_root_hash: 'not hex' },
    { ...statement, reason: 7 as unknown as string },
    { ...statement, requested_by: null as unknown as string },
    { ...statement, key_id: 7 as unknown as string },
  ]
  for (const [index, bad] of changed.entries()) t.notOk(verifySealStatement(bad, publicKey), `change ${index} fails`)
  t.notOk(verifySealStatement(statement, other.publicKey), 'another key does not verify it')
  t.throws(() => signSealStatement(privateKey, { ...facts, old_root_hash: 'xyz' }), /not a seal of the log/)
})
