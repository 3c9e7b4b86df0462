import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { canonicalJson } from '@waybill/domain'
import { keyIdOf, leafHash, signKeyStatement, signSealStatement, signTreeHead, toHex, verifyConsistency, verifyInclusion } from '@waybill/merkle'
import { testApp } from '../../helpers/app.js'

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
const at = (n: number): string => `2025-03-0${n}T10:00:00Z`
const COURIER = 'orders:add,orders:update,orders:complete,orders:cancel'

t.test('the audit routes, the extended history and the image check, on a real store and read model', async (t) => {
  const app = await testApp(t)
  const { readSide, logs } = app
  const readModel = readSide.readModel
  const get = (url: string, principal: string | null = 'acme|orders:read') => app.get(url, principal)

  t.equal((await get('/v1/audit/heads/latest')).statusCode, 404, 'no head before the first leaf')
  const keyless = await get('/v1/audit/public-key', null)
  t.equal(keyless.statusCode, 404, 'no public key before the projector records one')
  t.equal(keyless.json().code, 'not_found')
  t.same((await get('/v1/audit/public-keys', null)).json(), { keys: [] })
  readSide.audit.heads.recordFirstKey(readSide.publicKey, new Date('2026-11-23T09:00:00.000Z'))

  const sha = createHash('sha256').update(PNG).digest('hex')
  // Sent as a courier sends them, with a request id of its own.
  const deliver = async (account: string, event: string, eventDate: string, payload: Record<string, unknown>): Promise<void> => {
    const answer = await app.post('/v1/deliveries', { event, event_date: eventDate, event_payload: payload }, `${account}|${COURIER}`, { 'x-request-id': 'test' })
    if (answer.statusCode >= 300) throw new Error(answer.body)
  }
  for (let i = 0; i < 9; i += 1) {
    await deliver(i % 3 === 0 ? 'globex' : 'acme', 'ORDER_ADD', at(1), { order_id: `o-${i}`, customer: 'c', location: 'l', status: 'pending', address: '1 Main', delivery_date: at(5) })
  }
  await deliver('acme', 'ORDER_UPDATE', at(2), { order_id: 'o-1', status: 'in_progress', address: '2 Main', delivery_date: at(6) })
  await deliver('acme', 'ORDER_COMPLETE', at(3), { order_id: 'o-1', address: '2 Main', delivery_date: at(3), recipient: 'Jane Doe', pod: `data:image/png;base64,${PNG.toString('base64')}` })
  const publicKey = readSide.publicKey
  await app.project({ batchSize: 4, audit: { signingKey: readSide.signingKey, heads: readSide.audit.heads, everyEvents: 4 } })
  const courierKeyId = (await app.key(`acme|${COURIER}`)).keyId
  // The blob the completion recorded: the image sealed with the order's key, named by its hash.
  const recordedBlob = async (): Promise<string> => {
    const history = (await get('/v1/orders/o-1/events')).json<{ events: Array<{ data: { pod?: { blob: string } } }> }>()
    return history.events[2]?.data.pod?.blob ?? ''
  }

  t.test('public key: no key needed; raw, PEM and key id agree', async (t) => {
    const response = await get('/v1/audit/public-key', null)
    t.equal(response.statusCode, 200)
    const doc = response.json<{ algorithm: string; public_key: string; public_key_pem: string; key_id: string }>()
    t.equal(doc.algorithm, 'Ed25519')
    t.equal(Buffer.from(doc.public_key, 'base64').length, 32)
    t.same(createPublicKey(doc.public_key_pem).export({ format: 'der', type: 'spki' }).subarray(-32), Buffer.from(doc.public_key, 'base64'))
    t.equal(doc.key_id, createHash('sha256').update(Buffer.from(doc.public_key, 'base64')).digest('hex').slice(0, 16))
  })

  t.test('heads: a page at a time, ascending; the latest; any key that reads, none without', async (t) => {
    t.equal((await get('/v1/audit/heads', null)).statusCode, 401)
    t.equal((await get('/v1/audit/heads', 'acme|orders:add')).statusCode, 403)
    const all = (await get('/v1/audit/heads?limit=1000', '*|orders:audit')).json<{ heads: Array<{ tree_size: number }>; next_cursor: null }>()
    t.ok(all.heads.length >= 3)
    t.equal(all.next_cursor, null)
    t.same(all.heads.map((h) => h.tree_size), [...all.heads.map((h) => h.tree_size)].sort((a, b) => a - b))
    const first = (await get('/v1/audit/heads?limit=1')).json<{ heads: Array<{ tree_size: number }>; next_cursor: string }>()
    t.same(first.heads, all.heads.slice(0, 1))
    const second = (await get(`/v1/audit/heads?limit=1&after=${first.next_cursor}`)).json<{ heads: unknown[] }>()
    t.same(second.heads, all.heads.slice(1, 2))
    const latest = (await get('/v1/audit/heads/latest')).json<{ tree_size: number; root_hash: string; timestamp: string; signature: string }>()
    t.equal(latest.tree_size, 11)
    t.ok(verify(null, Buffer.from(`waybill-tree-head/v1\n11\n${latest.root_hash}\n${latest.timestamp}\n`), publicKey, Buffer.from(latest.signature, 'base64')))
    t.equal((await get('/v1/audit/heads?limit=0')).statusCode, 400)
  })

  t.test('consistency: a proof between two signed sizes verifies; bounds are refused', async (t) => {
    const list = (await get('/v1/audit/heads')).json<{ heads: Array<{ tree_size: number; root_hash: string }> }>().heads
    const [a, b] = [list[0]!, list.at(-1)!]
    const response = (await get(`/v1/audit/consistency?first=${a.tree_size}&second=${b.tree_size}`)).json<{ proof: string[] }>()
    t.ok(verifyConsistency(a.tree_size, b.tree_size, Buffer.from(a.root_hash, 'hex'), Buffer.from(b.root_hash, 'hex'), response.proof.map((h) => Buffer.from(h, 'hex'))))
    t.equal((await get('/v1/audit/consistency?first=5&second=3')).json().code, 'bad_request')
    t.equal((await get('/v1/audit/consistency?first=1&second=12')).json().code, 'bad_request')
    t.equal((await get('/v1/audit/consistency?first=1')).json().code, 'bad_request')
  })

  t.test('proof and history: the leaf rebuilt from each history entry is in the signed tree', async (t) => {
    const proof = (await get('/v1/orders/o-1/proof')).json<{ head: { tree_size: number; root_hash: string }; entries: Array<{ event_id: string; revision: number; leaf_index: number; leaf_hash: string; audit_path: string[] }> }>()
    const history = (await get('/v1/orders/o-1/events')).json<{ events: Array<Record<string, unknown>>; chain: unknown }>()
    t.equal(proof.entries.length, 3)
    t.same(history.chain, { ok: true })
    for (const [i, entry] of proof.entries.entries()) {
      const event = history.events[i]!
      const bytes = canonicalJson({ event_id: event.event_id, stream: event.stream, revision: event.revision, type: event.type,
        data: event.data, event_date: event.event_date, received_at: event.received_at })
      t.equal(toHex(leafHash(Buffer.from(bytes))), entry.leaf_hash, `leaf ${i} rebuilt from the history entry`)
      t.equal(event.leaf_index, entry.leaf_index)
      t.equal(event.event_id, entry.event_id)
      t.ok(verifyInclusion(Buffer.from(entry.leaf_hash, 'hex'), entry.leaf_index, proof.head.tree_size,
        entry.audit_path.map((h) => Buffer.from(h, 'hex')), Buffer.from(proof.head.root_hash, 'hex')), `leaf ${i} is included`)
    }
    t.same(history.events.map((e) => (e.state_after as { status: string }).status), ['pending', 'in_progress', 'completed'])
    t.same(history.events.map((e) => [e.key_id, e.request_id, e.stream]), Array(3).fill([courierKeyId, 'test', 'order-acme-o-1']))
    t.equal((await get('/v1/orders/o-0/proof')).statusCode, 404, 'another account\'s order')
    t.equal((await get('/v1/orders/o-0/proof?account=globex', '*|orders:audit')).json<{ entries: unknown[] }>().entries.length, 1)

    const csv = await get('/v1/orders/o-1/events?format=csv')
    t.equal(csv.statusCode, 200)
    t.match(csv.headers['content-type'], /^text\/csv/)
    const lines = csv.body.trimEnd().split('\r\n')
    t.equal(lines[0], 'revision,event_id,stream,type,event_date,received_at,key_id,request_id,leaf_index,hash,prev_hash,erased,data,fields,state_after')
    t.equal(lines.length, 5, 'a header, three events, the chain verdict')
    t.match(lines[3], /^2,[0-9a-f-]{36},order-acme-o-1,OrderCompleted,2025-03-03T10:00:00Z,/)
    t.match(lines[3], /"\{""address"":""2 Main""/, 'data as canonical JSON in one quoted cell')
    t.equal(lines[4], 'chain: ok')
    t.equal((await get('/v1/orders/o-1/events?format=xml')).statusCode, 400)
  })

  t.test("the image served is the one the events recorded, whatever the read model's row names", async (t) => {
    // Someone who can write the data dir puts an image of their own in the blob store (named by
    // its hash, so it passes the bytes check) and points the read model's row at it.
    const forged = Buffer.concat([PNG, Buffer.from('forged')])
    const forgedSha = createHash('sha256').update(forged).digest('hex')
    await app.blobs.put(forged, forgedSha)
    const file = new Sqlite(readModel.path)
    file.prepare('UPDATE orders SET pod_sha256 = ? WHERE account = ? AND order_id = ?').run(forgedSha, 'acme', 'o-1')
    file.close()
    t.equal(readModel.getOrder('acme', 'o-1')?.pod?.sha256, forgedSha, 'the row now names the forged blob')
    logs.length = 0
    const response = await get('/v1/orders/o-1/pod')
    t.equal(response.statusCode, 200)
    t.same(response.rawPayload, PNG, 'the recorded image is served, not the one the row names')
    const line = logs.find((entry) => entry.row_blob === forgedSha)
    t.equal(line?.level, 50, 'the disagreement is an error in the log')
    t.equal(line?.sha256, sha, 'naming the recorded image')
    t.equal(line?.blob, await recordedBlob(), 'and its sealed blob')
    t.equal((await get('/v1/orders/o-1/signature')).statusCode, 404, 'no signature was recorded: none is served')
    const restore = new Sqlite(readModel.path)
    restore.prepare('UPDATE orders SET pod_sha256 = ? WHERE account = ? AND order_id = ?').run(sha, 'acme', 'o-1')
    restore.close()
  })

  t.test('an image is served only when its bytes hash to what the event recorded', async (t) => {
    t.equal((await get('/v1/orders/o-1/pod')).statusCode, 200)
    const blob = await recordedBlob()
    const file = join(app.dataDir, 'blobs', blob.slice(0, 2), blob.slice(2))
    await writeFile(file, 'not a png at all')
    for (const [what, change] of [['overwritten', async () => {}], ['deleted', () => rm(file)]] as const) {
      await change()
      logs.length = 0
      const response = await get('/v1/orders/o-1/pod')
      t.equal(response.statusCode, 500, what)
      t.match(response.json(), { code: 'server_error', detail: 'Internal server error' }, `${what}: nothing of why to the client`)
      t.notMatch(response.body, blob, `${what}: the blob is not named to the client`)
      const line = logs.find((entry) => entry.blob === blob)
      t.equal(line?.level, 50, `${what}: an error in the log names the blob`)
      t.match(line?.msg, what === 'deleted' ? /missing/ : /does not hash to its name/)
    }
  })

  t.test('public keys: the set, with each key\'s validity and the statement that brought it in; a rotation signs its size twice', async (t) => {
    const heads = readSide.audit.heads
    const before = heads.latest()!
    const { privateKey: next } = generateKeyPairSync('ed25519')
    const { statement } = heads.changeKey(({ current, latest, now }) => ({
      statement: signKeyStatement({ oldKeyId: current.key_id, treeSize: latest!.tree_size, rootHash: latest!.root_hash, at: now }, next, readSide.signingKey),
      head: signTreeHead(next, latest!.tree_size, latest!.root_hash, now),
    }))
    const set = (await get('/v1/audit/public-keys', null)).json<{ keys: Array<Record<string, unknown>> }>().keys
    t.same(set.map((k) => [k.key_id, k.status, k.valid_until === null, k.valid_from === null]),
      [[keyIdOf(readSide.publicKey), 'retired', false, true], [keyIdOf(next), 'current', true, false]])
    t.same(set[1]?.replaces, statement, 'the signed statement, as recorded')
    t.equal(set[0]?.valid_until, statement.timestamp)
    const current = (await get('/v1/audit/public-key', null)).json<{ key_id: string; status?: string }>()
    t.equal(current.key_id, keyIdOf(next), 'the public key is the current one')
    t.equal(current.status, undefined, 'with the members the contract names, no more')
    const page = (await get(`/v1/audit/heads?after=${before.tree_size - 1}&limit=1`)).json<{ heads: Array<{ tree_size: number; key_id: string }>; next_cursor: string | null }>()
    t.same(page.heads.map((h) => [h.tree_size, h.key_id]), [[before.tree_size, before.key_id], [before.tree_size, keyIdOf(next)]], 'a page holds both heads of the rotation\'s size')
    t.equal((await get('/v1/audit/heads/latest')).json<{ key_id: string }>().key_id, keyIdOf(next))
  })
})

t.test('seals: none for a log never sealed; once sealed, its statement, closing and new heads, and the heads set aside with their proofs', async (t) => {
  const app = await testApp(t)
  const { heads } = app.readSide.audit
  const key = app.readSide.signingKey
  const get = (url: string, principal: string | null = 'acme|orders:read') => app.get(url, principal)
  t.same((await get('/v1/audit/seals')).json(), { seals: [] })
  t.equal((await get('/v1/audit/seals', null)).statusCode, 401)
  t.equal((await get('/v1/audit/seals', 'acme|orders:add')).statusCode, 403)
  const old = signTreeHead(key, 1, 'aa'.repeat(32), new Date('2026-11-27T13:00:00.000Z'))
  heads.add(old)
  const at = new Date('2026-11-27T14:00:00.000Z')
  const statement = signSealStatement(key, { old_tree_size: 2, old_root_hash: 'bb'.repeat(32), new_tree_size: 2, new_root_hash: 'cc'.repeat(32), at, reason: 'ticket 9', requested_by: 'dpo' })
  const closing = signTreeHead(key, 2, 'bb'.repeat(32), at)
  const opened = signTreeHead(key, 2, 'cc'.repeat(32), at)
  heads.recordSeal({ statement, closing_head: closing, new_head: opened, proofs: new Map([[1, ['dd'.repeat(32)]]]) })
  t.same((await get('/v1/audit/seals', '*|orders:audit')).json(), {
    seals: [{ statement, closing_head: closing, new_head: opened, sealed_heads: [{ head: old, proof: ['dd'.repeat(32)] }], finished_at: null }],
  })
  t.same((await get('/v1/audit/heads')).json<{ heads: unknown[] }>().heads, [opened], 'the heads route serves the live tree\'s heads only')
})
