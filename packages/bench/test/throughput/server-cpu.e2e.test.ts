import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { once } from 'node:events'
import type { Readable, Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { measureServerCpu, parseStat, processTreeSeconds } from '../../src/throughput/server-cpu.js'

// A worker thread spends `ms` of the process's CPU (all its threads: the others are idle).
const BURN = `const { Worker } = require('node:worker_threads');
const burn = (ms) => new Promise((done) => new Worker('const s = process.cpuUsage(); const u = () => { const c = process.cpuUsage(s); return (c.user + c.system) / 1000 }; while (u() < ' + ms + ') {}', { eval: true }).on('exit', done));`
// On each line: 'child' starts a child process that burns 300 ms in a worker thread and stays,
// 'end' ends that child (its parent waits for it), 'forever' burns until killed (from the moment it
// says so: a write to a pipe is synchronous); says 'done'.
const SERVER = `${BURN}
const { spawn } = require('node:child_process');
let child = null;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'child') {
    child = spawn(process.execPath, ['-e', ${JSON.stringify(BURN)} + "burn(300).then(() => { console.log('burnt'); process.stdin.resume() })"], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.once('data', () => console.log('done'));
  } else if (line === 'end') {
    child.on('exit', () => console.log('done'));
    child.stdin.end();
  } else if (line === 'forever') {
    console.log('done');
    for (;;);
  }
});
console.log('ready');`

type Server = ChildProcessByStdio<Writable, Readable, null>

async function startServer(t: Test): Promise<Server> {
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => { server.kill('SIGKILL') })
  await once(server.stdout, 'data')
  return server
}
const ask = async (server: Server, line: string): Promise<void> => {
  const done = once(server.stdout, 'data')
  server.stdin.write(`${line}\n`)
  await done
}
const quick = { intervalMs: 100, quietSeconds: 0.011, maxMs: 2000 }

t.test('/proc/<pid>/stat: fields counted from the command\'s last parenthesis; utime, stime, cutime and cstime summed', async (t) => {
  const line = '4242 (node (x) y) S 17 4242 4242 0 -1 4194304 100 0 0 0 150 25 7 3 20 0 11 0 12345 1000000 5000 18446744073709551615'
  t.same(parseStat(line), { pid: 4242, ppid: 17, ticks: 150 + 25 + 7 + 3 })
  t.same(parseStat(`1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 2 3 4 5 20 0 1 0 1 0 0`), { pid: 1, ppid: 0, ticks: 14 })
})

t.test('a server\'s CPU (real processes): its threads and its child processes, alive or ended, and none of the caller\'s', async (t) => {
  const server = await startServer(t)
  const pid = server.pid ?? 0
  const { result, cpu } = await measureServerCpu(pid, async () => { await ask(server, 'child'); return 'answered' }, quick)
  t.equal(result, 'answered', 'the load\'s result is handed back')
  t.ok(cpu !== null && cpu.seconds >= 0.25 && cpu.seconds < 2, `a child's worker thread burnt 300 ms: ${cpu?.seconds} s counted`)
  t.ok(cpu !== null && cpu.afterLoadSeconds >= 0 && cpu.afterLoadSeconds <= cpu.seconds, 'the part after the load is a part')
  const ended = await measureServerCpu(pid, () => ask(server, 'end'), quick)
  t.ok(ended.cpu !== null && ended.cpu.seconds < 0.15, `its CPU stays counted once it has ended (its parent's cutime): ${ended.cpu?.seconds} s`)
  const generator = await measureServerCpu(pid, async () => {
    const start = process.cpuUsage()
    for (let spent = 0; spent < 300_000; spent = process.cpuUsage(start).user + process.cpuUsage(start).system);
  }, quick)
  t.ok(generator.cpu !== null && generator.cpu.seconds < 0.15, `300 ms of the load generator's (the caller's) CPU is not the server's: ${generator.cpu?.seconds} s`)
  t.ok((processTreeSeconds(process.pid) ?? 0) > (processTreeSeconds(pid) ?? 0), 'the caller, the server\'s parent, counts its own tree, the server in it')
})

t.test('a server still busy when the load ends: its CPU is read until it is quiet, or until the wait runs out', async (t) => {
  const server = await startServer(t)
  // Half a second an interval: at a load average of 13 on two cores, a busy process still gets several ticks in one.
  const { cpu } = await measureServerCpu(server.pid ?? 0, () => ask(server, 'forever'), { ...quick, intervalMs: 500, maxMs: 1500 })
  t.ok(cpu !== null && cpu.afterLoadSeconds > 0, `a busy server is read after the load too: ${cpu?.afterLoadSeconds} s`)
  server.kill('SIGKILL')
  await once(server, 'exit')
  const gone = await measureServerCpu(server.pid ?? 0, async () => 'still run', quick)
  t.same(gone, { result: 'still run', cpu: null }, 'a server that has ended is not read')
  t.equal(processTreeSeconds(server.pid ?? 0), null)
})
