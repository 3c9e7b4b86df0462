import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runWaybill } from './waybill-process.js'

t.test('waybill keys: create, list, rotate, revoke, help and errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { WAYBILL_DATA_DIR: dir }
  const keys = (...args: string[]) => runWaybill(['keys', ...args], env)

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
  t.equal((await runWaybill(['serve', '--help'], env)).code, 0)
})
