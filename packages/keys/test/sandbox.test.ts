import { readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { openMemoryEventStore } from '@waybill/event-store'
import { KeyRing } from '../src/key-ring.js'
import { ensureSandboxKey } from '../src/sandbox.js'
import { SCOPES } from '../src/scopes.js'
import { tempDir } from './stores.js'

t.test('the first start of an empty data dir issues the sandbox test key with every scope, once', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  const first = await ensureSandboxKey(keys, dataDir)
  const path = join(dataDir, 'test-api-key')
  t.equal(first.path, path)
  t.match(first.created, /^wb_test_/)
  t.equal((await readFile(path, 'utf8')).trim(), first.created)
  t.equal((await stat(path)).mode & 0o777, 0o600)
  t.match(await keys.authenticate(first.created ?? ''), { account: 'sandbox', test: true, scopes: [...SCOPES] })

  t.same(await ensureSandboxKey(keys, dataDir), { created: null, path, enabled: true }, 'the file is there: nothing new')
  await rm(path)
  t.same(await ensureSandboxKey(keys, dataDir), { created: null, path, enabled: true }, 'the store holds keys: nothing new')
  t.equal((await keys.list()).length, 1)
})

t.test('a server without the sandbox makes no test key', async (t) => {
  const dataDir = await tempDir(t)
  const keys = new KeyRing(openMemoryEventStore())
  t.same(await ensureSandboxKey(keys, dataDir, { enabled: false }), { created: null, path: join(dataDir, 'test-api-key'), enabled: false })
  t.same(await keys.list(), [])
})
