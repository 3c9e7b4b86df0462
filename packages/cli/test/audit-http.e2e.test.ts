import { createPublicKey, verify } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addBody, clientFor, completeBody } from './https-client.js'
import { startServe } from '../src/testing.js'

t.test('through `waybill serve` over HTTPS: the public key without a key, heads and proofs with one, and the OpenAPI document', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'waybill-audit-http-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const served = await startServe({ WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: join(root, 'audit-key') })
  t.teardown(() => served.stop())
  t.match(served.output(), /created the tree-head signing key .*audit-key\/tree-head-ed25519\.pem[\s\S]*BEGIN PUBLIC KEY/, 'the public key is printed at creation')
  const client = await clientFor(served.httpsUrl, dataDir)
  t.teardown(() => client.close())

  const key = await client.get('/v1/audit/public-key', null)
  t.equal(key.status, 200, 'no key needed')
  const doc = JSON.parse(key.text) as { public_key_pem: string; key_id: string }
  t.equal((await client.get('/v1/audit/heads', null)).status, 401, 'the heads need a key')

  t.equal((await client.post(addBody('H-1'))).status, 201)
  t.equal((await client.post(completeBody('H-1'))).status, 202)
  // Heads follow the projector (caught up: at most a second after the last).
  let latest = await client.get('/v1/audit/heads/latest')
  for (let attempt = 0; (latest.status !== 200 || (JSON.parse(latest.text) as { tree_size: number }).tree_size < 2) && attempt < 100; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    latest = await client.get('/v1/audit/heads/latest')
  }
  const head = JSON.parse(latest.text) as { tree_size: number; root_hash: string; timestamp: string; signature: string; key_id: string }
  t.equal(head.tree_size, 2)
  t.equal(head.key_id, doc.key_id)
  t.ok(verify(null, Buffer.from(`waybill-tree-head/v1\n${head.tree_size}\n${head.root_hash}\n${head.timestamp}\n`),
    createPublicKey(doc.public_key_pem), Buffer.from(head.signature, 'base64')), 'signed by the served key')
  const proof = JSON.parse((await client.get('/v1/orders/H-1/proof')).text) as { entries: Array<{ audit_path: string[] | null }> }
  t.same(proof.entries.map((entry) => entry.audit_path?.length), [1, 1], 'both events covered, one sibling each')
  const history = JSON.parse((await client.get('/v1/orders/H-1/events')).text) as { events: Array<{ key_id: string; request_id: string }>; chain: unknown }
  t.same(history.chain, { ok: true })
  t.equal(history.events[0]?.key_id, client.key.slice(8, 20), 'the sender\'s key id')
  t.match(history.events[0]?.request_id, /\S/)
  t.equal((await client.get('/v1/orders/H-1/pod')).status, 200)

  const openapi = JSON.parse((await client.get('/docs/json', null)).text) as { paths: Record<string, Record<string, { operationId?: string; summary?: string; security?: unknown[] }>> }
  const ids = Object.fromEntries(['/v1/audit/public-key', '/v1/audit/heads', '/v1/audit/heads/latest', '/v1/audit/consistency', '/v1/orders/{order_id}/proof']
    .map((path) => [path, openapi.paths[path]?.get?.operationId]))
  t.same(ids, {
    '/v1/audit/public-key': 'getAuditPublicKey', '/v1/audit/heads': 'getAuditHeads', '/v1/audit/heads/latest': 'getLatestAuditHead',
    '/v1/audit/consistency': 'getAuditConsistency', '/v1/orders/{order_id}/proof': 'getOrderProof',
  })
  t.same(openapi.paths['/v1/audit/public-key']?.get?.security, [])
  for (const path of Object.keys(ids)) t.type(openapi.paths[path]?.get?.summary, 'string', `${path} has a summary`)
})
