import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addBody, clientFor, completeBody, type Client } from './https-client.js'
import { runWaybill, startServe, startWaybill } from '../src/testing.js'

const root = await mkdtemp(join(tmpdir(), 'waybill-audit-keys-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const envOf = (dataDir: string, keyDir: string) => ({
  WAYBILL_DATA_DIR: dataDir, WAYBILL_AUDIT_KEY_DIR: keyDir, WAYBILL_PROJECTOR_PORT: '0', WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '1', LOG_LEVEL: 'warn',
})

interface Head { tree_size: number; key_id: string }

/** The latest head once one of at least `size` leaves is kept (signed `key` when given). */
async function headAt(client: Client, size: number, key?: string): Promise<Head> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const answer = await client.get('/v1/audit/heads/latest')
    const head = answer.status === 200 ? JSON.parse(answer.text) as Head : null
    if (head !== null && head.tree_size >= size && (key === undefined || head.key_id === key)) return head
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no head of ${size} leaves${key === undefined ? '' : ` by ${key}`}`)
}

t.test('serve --no-projector never opens the key directory: it serves the public keys from the heads file', async (t) => {
  const dataDir = join(root, 'ingress-data')
  const ingressKeyDir = join(root, 'ingress-has-no-key')
  const projectorKeyDir = join(root, 'projector-key')
  const ingress = await startServe(envOf(dataDir, ingressKeyDir), ['--no-projector'])
  t.teardown(() => ingress.stop())
  t.match(ingress.output(), /this process signs no tree head \(--no-projector\) and holds no signing key; the projector does\. Current key: none recorded yet/)
  const client = await clientFor(ingress.httpsUrl, dataDir)
  t.teardown(() => client.close())
  t.equal((await client.get('/v1/audit/public-key', null)).status, 404, 'no key until a projector records one')
  t.same(JSON.parse((await client.get('/v1/audit/public-keys', null)).text), { keys: [] })

  const projector = startWaybill(['projector', '--status-every', '60'], { env: envOf(dataDir, projectorKeyDir) })
  await projector.until(/projector: started/)
  t.teardown(() => projector.stop())
  t.equal((await client.post(addBody('N-1'))).status, 201)
  const head = await headAt(client, 1)
  const served = JSON.parse((await client.get('/v1/audit/public-key', null)).text) as { key_id: string }
  t.equal(served.key_id, head.key_id, 'the projector\'s key, served by the ingress from the heads file')
  t.match(projector.output(), new RegExp(`created the tree-head signing key .*projector-key.*key id ${head.key_id}`))
  t.notOk(existsSync(ingressKeyDir), 'the ingress never made, nor needed, a key directory')
  t.equal((await projector.stop()).code, 0)
  await ingress.stop()

  // A key file any user may read, which a process that opened it would refuse: the ingress starts all the same.
  await mkdir(ingressKeyDir, { mode: 0o700 })
  const exposed = join(ingressKeyDir, 'tree-head-ed25519.pem')
  await writeFile(exposed, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }))
  await chmod(exposed, 0o644)
  const again = await startServe(envOf(dataDir, ingressKeyDir), ['--no-projector'])
  t.teardown(() => again.stop())
  const reader = await clientFor(again.httpsUrl, dataDir)
  t.teardown(() => reader.close())
  t.equal((JSON.parse((await reader.get('/v1/audit/public-key', null)).text) as { key_id: string }).key_id, head.key_id,
    'serve --no-projector never read the key file there: it serves the projector\'s key from the heads file')
  await again.stop()
  const projecting = await runWaybill(['serve'], { env: { ...envOf(dataDir, ingressKeyDir), WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0' } })
  t.equal(projecting.code, 1, 'while serve with its projector reads it, and refuses')
  t.match(projecting.stderr, /tree-head-ed25519\.pem is readable by others \(mode 644\)/)
})

t.test('a data dir restored without its key: serve refuses, naming the key and the ways out; rotate-key --old-key-lost; every head verifies', async (t) => {
  const dataDir = join(root, 'restored')
  const lostKeyDir = join(root, 'lost-key')
  const first = await startServe(envOf(dataDir, lostKeyDir))
  const client = await clientFor(first.httpsUrl, dataDir)
  t.equal((await client.post(addBody('L-1'))).status, 201)
  t.equal((await client.post(completeBody('L-1'))).status, 202)
  const before = await headAt(client, 2)
  await client.close()
  t.equal(await first.stop(), 0)
  const pinned = join(root, 'pinned-lost.json')
  await writeFile(pinned, (await runWaybill(['audit', 'public-key'], { env: envOf(dataDir, lostKeyDir) })).stdout)
  await rm(lostKeyDir, { recursive: true })

  const newKeyDir = join(root, 'new-key')
  const env = envOf(dataDir, newKeyDir)
  const refused = await runWaybill(['serve'], { env: { ...env, WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0' } })
  t.equal(refused.code, 1, 'serve refuses to start')
  t.match(refused.stderr, new RegExp(`signed by key ${before.key_id}, but .*new-key holds no signing key\\. Either restore the key directory \\(WAYBILL_AUDIT_KEY_DIR\\) .*\`waybill audit rotate-key --old-key-lost\``))
  t.notOk(existsSync(newKeyDir), 'and makes no key of its own')
  const verified = await runWaybill(['audit', 'verify'], { env })
  t.equal(verified.code, 0, `the restored log verifies with the backed-up public keys:\n${verified.stdout}`)

  const rotated = await runWaybill(['audit', 'rotate-key', '--old-key-lost'], { env })
  t.equal(rotated.code, 0, rotated.stderr)
  const [, newKey = ''] = /heads are signed by key ([0-9a-f]{16})/.exec(rotated.stdout) ?? []
  t.match(rotated.stdout, new RegExp(`key ${before.key_id} is recorded as lost: .*tell your auditors its id \\(${newKey}\\)`))
  const second = await startServe(env)
  t.teardown(() => second.stop())
  const again = await clientFor(second.httpsUrl, dataDir)
  t.teardown(() => again.close())
  t.equal((await again.post(addBody('L-2'))).status, 201)
  await headAt(again, 3, newKey)
  await second.stop()

  const all = await runWaybill(['audit', 'verify'], { env })
  t.equal(all.code, 0, `heads of both keys verify, each with the key it names:\n${all.stdout}`)
  const strict = await runWaybill(['audit', 'verify', '--public-key', pinned], { env })
  t.equal(strict.code, 1, 'an auditor who pinned only the lost key is not asked to take the new one on trust')
  t.match(strict.stdout, new RegExp(`SIGNATURE: head 3 .*signed by key ${newKey}: it replaced key ${before.key_id}, declared lost at tree size 2`))
  const newPinned = join(root, 'pinned-new.json')
  await writeFile(newPinned, (await runWaybill(['audit', 'public-key'], { env })).stdout)
  t.equal((await runWaybill(['audit', 'verify', '--public-key', pinned, '--public-key', newPinned], { env })).code, 0, 'pinning the new key too, after confirming it')
})

t.test('rotate-key while serve runs: the old key vouches for the new one, the projector follows, and the pinned old key still verifies all', async (t) => {
  const dataDir = join(root, 'rotated')
  const env = envOf(dataDir, join(root, 'rotating-key'))
  const served = await startServe(env)
  t.teardown(() => served.stop())
  const client = await clientFor(served.httpsUrl, dataDir)
  t.teardown(() => client.close())
  t.equal((await client.post(addBody('R-1'))).status, 201)
  const old = await headAt(client, 1)
  const pinned = join(root, 'pinned-old.json')
  await writeFile(pinned, (await client.get('/v1/audit/public-key', null)).text)

  const rotated = await runWaybill(['audit', 'rotate-key'], { env })
  t.equal(rotated.code, 0, rotated.stderr)
  const [, newKey = ''] = /heads are signed by key ([0-9a-f]{16})/.exec(rotated.stdout) ?? []
  t.match(rotated.stdout, new RegExp(`key ${old.key_id} endorsed the new key`))
  t.equal((await client.post(addBody('R-2'))).status, 201)
  await headAt(client, 2, newKey)
  const set = JSON.parse((await client.get('/v1/audit/public-keys', null)).text) as { keys: Array<{ key_id: string; status: string }> }
  t.same(set.keys.map((k) => [k.key_id, k.status]), [[old.key_id, 'retired'], [newKey, 'current']])
  t.equal((JSON.parse((await client.get('/v1/audit/public-key', null)).text) as { key_id: string }).key_id, newKey)
  t.equal((await runWaybill(['audit', 'rotate-key', '--old-key-lost'], { env })).code, 1, 'a key that is at hand is not lost')
  await served.stop()
  const verify = await runWaybill(['audit', 'verify', '--public-key', pinned], { env })
  t.equal(verify.code, 0, `the key pinned before the rotation vouches for the new one:\n${verify.stdout}`)
  t.match(verify.stdout, new RegExp(`keys believed: ${old.key_id}, ${newKey} \\(--public-key, and the keys they vouched for\\)`))
  t.equal((await runWaybill(['audit', 'keys'], { env })).stdout.match(/"key_id"/g)?.length, 2)
})
