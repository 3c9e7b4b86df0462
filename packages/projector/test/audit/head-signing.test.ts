import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { signTreeHead, type SignedTreeHead } from '@waybill/merkle'
import { HeadStore } from '../../src/index.js'
import { headSigning, problemOf } from '../../src/audit/head-signing.js'
import { tempDir } from '../helpers.js'

const { privateKey } = generateKeyPairSync('ed25519')
const head = (size: number, root: string): SignedTreeHead => signTreeHead(privateKey, size, root, new Date('2026-01-01T00:00:00Z'))

t.test('a verdict becomes a problem an operator can act on, or none', async (t) => {
  t.equal(problemOf({ kind: 'none' }), null)
  t.equal(problemOf({ kind: 'signed', head: head(3, 'ab'.repeat(32)) }), null)
  t.match(problemOf({ kind: 'inconsistent', head: head(3, 'ab'.repeat(32)), root: 'cd'.repeat(32) }),
    /^the audit tree's root at size 3 is (cd){32}, not the signed head's (ab){32}: the log or the audit log was changed; no head is signed until `waybill audit verify`/)
  t.match(problemOf({ kind: 'behind', treeSize: 2, headSize: 3 }), /^the audit tree holds 2 leaves but a head was signed at 3: events were cut from the log, or this audit log has not reached it/)
})

t.test('head signing: signs and logs it, shows a problem in its status and logs it once per change', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const heads = HeadStore.inDataDir(dir.path)
  t.teardown(() => heads.close())
  heads.add(head(2, '11'.repeat(32)))
  const lines: Array<{ level: string; message: string }> = []
  const log = { info: (_o: object, m?: string) => lines.push({ level: 'info', message: m ?? '' }), warn() {}, error: (_o: object, m?: string) => lines.push({ level: 'error', message: m ?? '' }) }
  const signing = headSigning({ signingKey: privateKey, heads, everyEvents: 1 }, log)
  t.same(signing.status(), { treeSize: 0, headSize: 2, problem: null }, 'starts from the latest kept head')
  let root = Buffer.alloc(32, 0x11)
  const tree = { size: () => 4, root: () => root }
  signing.afterBatch(tree, true)
  t.same(signing.status(), { treeSize: 4, headSize: 4, problem: null })
  t.same(lines, [{ level: 'info', message: 'projector: signed a tree head' }])
  root = Buffer.alloc(32, 0x22)
  signing.afterBatch(tree, true)
  signing.afterBatch(tree, true)
  t.match(signing.status(), { treeSize: 4, headSize: 4, problem: /root at size 4 is (22){32}, not the signed head's (11){32}/ })
  t.same(lines.slice(1), [{ level: 'error', message: 'projector: AUDIT LOG INCONSISTENT WITH A SIGNED HEAD' }], 'once, however many batches')
  t.equal(heads.latest()?.tree_size, 4, 'nothing signed over it')
})
