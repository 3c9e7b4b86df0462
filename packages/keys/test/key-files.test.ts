import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { readSecretFile, replacementKeyPath, testKeyPath, writeSecretFile } from '../src/key-files.js'
import { tempDir } from './stores.js'

t.test('paths: test-api-key and replaced-keys/<id> in the data dir', async (t) => {
  t.equal(testKeyPath('/data'), join('/data', 'test-api-key'))
  t.equal(replacementKeyPath('/data', 'AbCdEfGh1234'), join('/data', 'replaced-keys', 'AbCdEfGh1234'))
})

t.test('a secret is written 0600 in a 0700 directory, and read back without its newline', async (t) => {
  const dataDir = await tempDir(t)
  const path = replacementKeyPath(dataDir, 'AbCdEfGh1234')
  await writeSecretFile(path, 'wb_live_secret')
  t.equal(await readFile(path, 'utf8'), 'wb_live_secret\n')
  t.equal((await stat(path)).mode & 0o777, 0o600)
  t.equal((await stat(join(dataDir, 'replaced-keys'))).mode & 0o777, 0o700)
  t.equal(await readSecretFile(path), 'wb_live_secret')
  await writeSecretFile(path, 'wb_live_other')
  t.equal(await readSecretFile(path), 'wb_live_other', 'rewritten in place')
})

t.test('no file is null; any other read failure is thrown', async (t) => {
  const dataDir = await tempDir(t)
  t.equal(await readSecretFile(testKeyPath(dataDir)), null)
  await t.rejects(readSecretFile(dataDir), { code: 'EISDIR' })
})
