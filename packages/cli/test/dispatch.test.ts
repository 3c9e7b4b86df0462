import t from 'tap'
import { WAYBILL_VERSION } from '@waybill/domain'
import { COMMANDS } from '../src/command-table.js'
import { dispatch } from '../src/dispatch.js'
import { runWaybill } from '../src/testing.js'

t.test('the help lists every command with its summary; no command or an unknown one is a usage error', async (t) => {
  const bare = await runWaybill([])
  t.equal(bare.code, 2, 'no command is a usage error')
  for (const [name, { summary }] of Object.entries(COMMANDS)) t.match(bare.stdout, `\n  ${name.padEnd(10)} ${summary}\n`, name)
  for (const args of [['--help'], ['-h'], ['help']]) {
    const help = await runWaybill(args)
    t.equal(help.code, 0, args.join(' '))
    t.equal(help.stdout, bare.stdout, `${args.join(' ')}: the same text`)
  }
  const unknown = await runWaybill(['fly'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /^waybill: unknown command "fly"\n\nUsage: waybill <command>/)
})

t.test('--version names the version and the Node.js it runs on', async (t) => {
  for (const flag of ['--version', '-V']) {
    const answer = await runWaybill([flag])
    t.equal(answer.code, 0)
    t.equal(answer.stdout, `waybill ${WAYBILL_VERSION} (Node.js ${process.version})\n`, flag)
  }
  t.match(WAYBILL_VERSION, /^\d+\.\d+\.\d+$/)
})

t.test('a command\'s help starts with its summary; `help <command>` is the same', async (t) => {
  const help = await runWaybill(['verify', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, `waybill verify: ${COMMANDS.verify.summary}\n\nUsage: waybill verify [--json]`)
  t.same(await runWaybill(['help', 'verify']), help)
  t.equal((await runWaybill(['replay', '-h'])).code, 0)
})

t.test('usage errors exit 2 with the message and the help; other errors exit 1 as `waybill: <message>`', async (t) => {
  const extra = await runWaybill(['verify', 'x'])
  t.equal(extra.code, 2)
  t.match(extra.stderr, /^waybill verify: unexpected argument "x"\n\nUsage: waybill verify/)
  const option = await runWaybill(['openapi', '--bogus'])
  t.equal(option.code, 2)
  t.match(option.stderr, /^waybill openapi: Unknown option '--bogus'/)
  const config = await runWaybill(['verify'], { env: { WAYBILL_STORE: 'mysql' } })
  t.equal(config.code, 1)
  t.equal(config.stderr, 'waybill: WAYBILL_STORE: expected one of sqlite, eventstoredb, got "mysql"\n', 'the configuration error names the variable')
})

t.test('only a long-running command is run through runLong (the process\'s signals)', async (t) => {
  const world = { env: { WAYBILL_DATA_DIR: '/nonexistent/waybill' }, stdout: { write: () => true }, stderr: { write: () => true }, signal: new AbortController().signal }
  const handed: string[] = []
  const runLong = (name: string) => (run: (signal: AbortSignal) => Promise<number>): Promise<number> => {
    handed.push(name)
    return run(new AbortController().signal)
  }
  t.equal(await dispatch(['verify'], world, { runLong: runLong('verify') }), 1, 'verify fails on a data dir with no store')
  t.equal(await dispatch(['projector', '--batch-size', '0'], world, { runLong: runLong('projector') }), 2, 'a usage error, told through runLong')
  t.same(handed, ['projector'], 'verify ran without it; projector was handed to it')
})
