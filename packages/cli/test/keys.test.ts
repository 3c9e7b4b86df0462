import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openSqliteEventStore } from '@waybill/event-store'
import { KeyRing } from '@waybill/keys'
import { runWaybill } from '../src/testing.js'

t.test('waybill keys: create, list, rotate, revoke, help and errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  const keys = (...args: string[]) => runWaybill(['keys', ...args], { env })

  const early = await keys('list')
  t.equal(early.code, 1, 'list before any key: no store here yet')
  t.match(early.stderr, /no event store at .*events\.sqlite: check WAYBILL_DATA_DIR/)
  t.equal((await keys('create', '--account', 'acme')).code, 2)
  t.same(await readdir(dir), [], 'usage errors and a missing store create nothing')
  const created = await keys('create', '--account', 'acme', '--scopes', 'orders:add,orders:update')
  t.equal(created.code, 0, created.stderr)
  t.match(created.stdout, /^wb_live_[0-9A-Za-z]{55}\n$/)
  const keyId = created.stdout.slice('wb_live_'.length, 'wb_live_'.length + 12)

  const test = await keys('create', '--test', '--scopes', 'all')
  t.match(test.stdout, /^wb_test_/)

  const list = await keys('list')
  t.match(list.stdout, new RegExp(`${keyId}\\s+active\\s+live\\s+acme\\s+orders:add,orders:update`))
  t.notMatch(list.stdout, /wb_live_/, 'list never shows secrets')

  const rotated = await keys('rotate', keyId)
  t.equal(rotated.code, 0, rotated.stderr)
  t.match(rotated.stdout, /^wb_live_/)
  const newId = rotated.stdout.slice(8, 20)
  const json = JSON.parse((await keys('list', '--json')).stdout) as Array<Record<string, unknown>>
  t.match(json.find((row) => row['key_id'] === keyId), { state: 'rotated', replaced_by: newId })
  t.match(json.find((row) => row['key_id'] === newId), { state: 'active', replaces: keyId, scopes: ['orders:add', 'orders:update'] })

  t.equal((await keys('revoke', newId)).code, 0)
  const again = await keys('revoke', newId)
  t.equal(again.code, 1)
  t.match(again.stderr, /already revoked/)

  for (const [args, pattern, code] of [
    [['create', '--scopes', 'orders:add'], /--account is required/, 2],
    [['create', '--account', 'acme', '--scopes', 'orders:fly'], /unknown scope "orders:fly"/, 2],
    [['create', '--account', 'Bad-Name', '--scopes', 'orders:add'], /account/, 2],
    [['create', '--account', 'acme', '--scopes', 'orders:add', '--test'], /sandbox/, 2],
    [['create', '--bogus'], /bogus/, 2],
    [['rotate'], /needs a key id/, 2],
    [['revoke', 'nosuchkey123'], /no key with id/, 1],
    [['explode'], /unknown subcommand/, 2],
    [[], /subcommand is required/, 2],
  ] as const) {
    const result = await keys(...args)
    t.equal(result.code, code, args.join(' '))
    t.match(result.stderr, pattern, args.join(' '))
  }
  const help = await keys('--help')
  t.equal(help.code, 0)
  t.match(help.stdout, /create --account/)
  t.equal((await runWaybill(['serve', '--help'], { env })).code, 0)
})

t.test('waybill keys: headers, one-line usage errors, labels, expiry, update, grace, revoke by key, auditor keys, last use', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  const keys = (...args: string[]) => runWaybill(['keys', ...args], { env })
  const rows = async () => JSON.parse((await keys('list', '--json')).stdout) as Array<Record<string, unknown>>

  for (const args of [['explode'], [], ['create', '--bogus'], ['rotate'], ['update', 'AbCdEfGh1234'], ['rotate', 'AbCdEfGh1234', '--grace', '31d'],
    ['create', '--account', 'acme', '--scopes', 'orders:read', '--expires', '2020-01-01'], ['revoke', 'wb_live_truncated']]) {
    const result = await keys(...args)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stderr, /^waybill keys: [^\n]+ \(see waybill keys --help\)\n$/, `${args.join(' ')}: one line that points at --help`)
  }
  t.equal((await keys('explode')).stderr, 'waybill keys: unknown subcommand "explode" (see waybill keys --help)\n')
  t.notMatch((await keys('revoke', `wb_live_${'x'.repeat(20)}`)).stderr, /x{20}/, 'a truncated key is never echoed')

  const created = await keys('create', '--account', 'acme', '--scopes', 'orders:add,orders:read', '--label', 'courier app', '--expires', '90d')
  t.equal(created.code, 0, created.stderr)
  const key = created.stdout.trim()
  const keyId = key.slice(8, 20)
  const auditor = await keys('create', '--account', '*', '--scopes', 'orders:audit', '--label', 'external audit')
  t.equal(auditor.code, 0, auditor.stderr)
  const refused = await keys('create', '--account', '*', '--scopes', 'orders:audit,orders:add')
  t.equal(refused.code, 2)
  t.match(refused.stderr, /auditor keys: scope orders:audit/)
  t.match((await keys('create', '--account', 'acme', '--scopes', 'orders:audit')).stderr, /orders:audit is for auditor keys/)

  const list = await keys('list')
  const [header, ...lines] = list.stdout.trimEnd().split('\n')
  t.match(header, /^KEY ID\s+STATE\s+KIND\s+ACCOUNT\s+SCOPES\s+LABEL\s+EXPIRES\s+LAST USED\s+NOTES$/, 'column headers')
  t.match(lines[0], new RegExp(`^${keyId}\\s+active\\s+live\\s+acme\\s+orders:add,orders:read\\s+courier app\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ\\s+-\\s+-$`))
  t.match(lines[1], /^\w{12}\s+active\s+live\s+\*\s+orders:audit\s+external audit\s+never/)
  t.match((await rows())[0], { key_id: keyId, label: 'courier app', expires_at: String, last_used_at: null, usable: true, grace_until: null })

  // A request's use, recorded as the server records it (noted, then written in the background).
  const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') })
  const ring = new KeyRing(store)
  t.ok(await ring.authenticate(key))
  await ring.close()
  await store.close()
  const used = (await rows())[0]?.['last_used_at'] as string
  t.ok(Date.now() - Date.parse(used) < 60_000, 'last used: just now')
  t.match((await keys('list')).stdout, new RegExp(`${keyId}.*courier app\\s+\\S+ \\S+\\s+${used.slice(0, 10)} ${used.slice(11, 16)}Z`))

  const updated = await keys('update', key, '--scopes', 'orders:read', '--label', '', '--expires', 'never')
  t.equal(updated.code, 0, updated.stderr)
  t.match(updated.stderr, `key ${keyId} updated: scopes orders:read, label none, expires never`)
  t.match((await rows())[0], { scopes: ['orders:read'], label: null, expires_at: null })
  t.match((await keys('update', keyId, '--scopes', 'orders:audit')).stderr, /orders:audit belongs to keys of every account/)

  const rotated = await keys('rotate', keyId, '--grace', '24h')
  t.equal(rotated.code, 0, rotated.stderr)
  t.match(rotated.stderr, new RegExp(`key ${keyId} rotated \\(keeps working until \\S+\\); replacement \\w{12}`))
  t.match((await rows())[0], { state: 'rotated', usable: true, grace_until: String })
  t.match((await keys('list')).stdout, new RegExp(`${keyId}\\s+rotated.*works until \\S+ \\S+Z; replaced by`))

  const forged = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')
  const wrong = await keys('revoke', forged)
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /no stored key is the key given/)
  t.notMatch(wrong.stderr, /wb_live_/, 'the key is never echoed')
  const byKey = await keys('revoke', key)
  t.equal(byKey.code, 0, byKey.stderr)
  t.equal(byKey.stderr, `key ${keyId} revoked\n`, 'revoked by the whole key, named by its id')
  t.match((await rows())[0], { state: 'rotated', usable: false, reason: 'revoked by operator' }, 'the grace ended at once')
  t.match((await keys('revoke', key)).stderr, /already rotated/)
})
