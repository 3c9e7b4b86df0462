import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { seeded } from './seeded-store.js'

// The thin wrappers in scripts/ run `waybill` as a process, from wherever the operator stands.
t.test('scripts/replay-order.sh reads a relative WAYBILL_DATA_DIR from where it is run', async (t) => {
  const dataDir = await seeded(t)
  const script = fileURLToPath(new URL('../../../scripts/replay-order.sh', import.meta.url))
  const cwd = join(dataDir, '..')
  const out = await promisify(execFile)(script, ['A-2'], { cwd, env: { PATH: process.env['PATH'] ?? '', WAYBILL_DATA_DIR: dataDir.slice(cwd.length + 1) } })
  t.match(out.stdout, /stream order-sandbox-A-2: 1 event\(s\)[\s\S]*hash chain: ok/)
  const missing = await promisify(execFile)(script, ['A-2'], { cwd, env: { PATH: process.env['PATH'] ?? '', WAYBILL_DATA_DIR: 'nowhere' } })
    .then(() => null, (error: unknown) => error as { code: number; stderr: string })
  t.equal(missing?.code, 1)
  t.match(missing?.stderr, /no event store at .*nowhere/)
})
