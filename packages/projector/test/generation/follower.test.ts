import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { GenerationFollower } from '../../src/generation/follower.js'
import { AUDIT_LOG_FILES, currentGeneration, READ_MODEL_FILES, removeOldGenerations, switchGeneration } from '../../src/generation/pointer.js'
import { tempDir } from '../helpers.js'

t.test('a follower holds one handle, and after a swap opens the new file before closing the old one', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const events: string[] = []
  const follower = new GenerationFollower(dir.path, AUDIT_LOG_FILES, (path) => {
    events.push(`open ${path.slice(dir.path.length + 1)}`)
    return { path, close: () => events.push(`close ${path.slice(dir.path.length + 1)}`) }
  })
  t.equal(follower.path, null)
  t.equal(follower.moved(), true, 'nothing open yet')
  const first = follower.current()
  t.equal(follower.current(), first, 'the same handle while the pointer stays')
  t.equal(follower.moved(), false)
  t.equal(follower.path, join(dir.path, 'audit-log.sqlite'))
  switchGeneration(dir.path, AUDIT_LOG_FILES, 'audit-log.20260101T000000000Z-1.sqlite')
  t.equal(currentGeneration(dir.path, READ_MODEL_FILES).path, join(dir.path, 'read-model.sqlite'), 'each projection has its own pointer')
  t.equal(follower.moved(), true)
  const second = follower.current()
  t.not(second, first)
  t.same(events, ['open audit-log.sqlite', 'open audit-log.20260101T000000000Z-1.sqlite', 'close audit-log.sqlite'])
  // The pointer rewritten with the same name (a second swap to it): the handle is kept.
  switchGeneration(dir.path, AUDIT_LOG_FILES, 'audit-log.20260101T000000000Z-1.sqlite')
  t.equal(follower.current(), second)
  follower.close()
  t.equal(events.at(-1), 'close audit-log.20260101T000000000Z-1.sqlite')
  follower.close()
  t.equal(events.length, 4, 'closing twice closes once')
})

t.test('old generations are removed, each projection\'s own only, with their WAL files', async (t) => {
  const dir = await tempDir()
  t.teardown(() => dir.remove())
  const names = ['read-model.sqlite', 'read-model.20260101T000000000Z-1.sqlite', 'read-model.20260101T000000000Z-1.sqlite-wal',
    'read-model.20260102T000000000Z-1.sqlite', 'audit-log.sqlite', 'audit-log.20260101T000000000Z-1.sqlite', 'events.sqlite']
  for (const name of names) writeFileSync(join(dir.path, name), '')
  removeOldGenerations(dir.path, READ_MODEL_FILES, ['read-model.20260102T000000000Z-1.sqlite', 'read-model.sqlite'])
  const { readdirSync } = await import('node:fs')
  t.same(readdirSync(dir.path).sort(), ['audit-log.20260101T000000000Z-1.sqlite', 'audit-log.sqlite', 'events.sqlite',
    'read-model.20260102T000000000Z-1.sqlite', 'read-model.sqlite'])
})
