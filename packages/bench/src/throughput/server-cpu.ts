import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** The CPU a server spent on one measured phase, read from /proc out of band. */
export interface ServerCpu {
  /** User + system seconds of the server's process tree, from before the load until it went quiet again. */
  readonly seconds: number
  /** Of which spent after the load generator stopped: work the server still owed (the projector catching up, say). */
  readonly afterLoadSeconds: number
}

export interface QuietOptions {
  /** How often the server's CPU is read while waiting for it to go quiet. */
  readonly intervalMs: number
  /** Quiet: at most this much CPU (seconds) spent in one interval. */
  readonly quietSeconds: number
  /** Stop waiting after this long, quiet or not. */
  readonly maxMs: number
}

// Quiet is at most two ticks (at 100 a second) in half a second, 4% of a core: a server idling
// with its timers spends less; one still projecting spends far more, even on a loaded machine.
const QUIET: QuietOptions = { intervalMs: 500, quietSeconds: 0.021, maxMs: 10_000 }

/** One line of /proc/<pid>/stat: the process, its parent and its CPU in clock ticks. */
interface ProcStat {
  readonly pid: number
  readonly ppid: number
  /** utime + stime (every thread, live or ended) + cutime + cstime (its children it has waited for). */
  readonly ticks: number
}

/**
 * Parses /proc/<pid>/stat (proc(5)). The command name, field 2, is in parentheses and may hold
 * spaces and parentheses itself, so the fields are counted from its last `)`.
 */
export function parseStat(line: string): ProcStat {
  const open = line.indexOf(' (')
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
  const at = (field: number): number => Number(fields[field - 3])
  return { pid: Number(line.slice(0, open)), ppid: at(4), ticks: at(14) + at(15) + at(16) + at(17) }
}

let ticksPerSecond: number | null = null

/** `getconf CLK_TCK`: the unit of /proc's CPU times (100 on every common Linux). */
function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))
  return ticksPerSecond
}

/** Process `pid`'s line of /proc, or null once it has ended. */
function statOf(pid: string): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return null
  }
}

/**
 * CPU seconds spent so far by process `pid` and every process below it, threads included; null
 * once `pid` has ended. Its descendants, not its process group: the servers share the bench's
 * group, and with it the load generator's CPU. Linux only (/proc).
 */
export function processTreeSeconds(pid: number): number | null {
  if (statOf(String(pid)) === null) return null
  // A process that ends between the listing and its read is left out, as it would be a moment later.
  const stats = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(statOf).filter((stat) => stat !== null)
  const tree = new Set([pid])
  // A child's pid can be lower than its parent's once pids wrap: sweep until nothing is added.
  for (let added = true; added;) {
    added = false
    for (const stat of stats) {
      if (!tree.has(stat.pid) && tree.has(stat.ppid)) {
        tree.add(stat.pid)
        added = true
      }
    }
  }
  return stats.reduce((ticks, stat) => ticks + (tree.has(stat.pid) ? stat.ticks : 0), 0) / clockTicksPerSecond()
}

/** Waits until process `pid` spends no more than `quietSeconds` in one interval; its CPU seconds then. */
async function quietSeconds(pid: number, options: QuietOptions): Promise<number | null> {
  let last = processTreeSeconds(pid)
  const deadline = performance.now() + options.maxMs
  while (last !== null && performance.now() < deadline) {
    await sleep(options.intervalMs)
    const now = processTreeSeconds(pid)
    if (now === null || now - last <= options.quietSeconds) return now
    last = now
  }
  return last
}

/**
 * Runs `load` (a phase of requests from this process) and measures the CPU the server `pid`
 * spent on it: read once the server is quiet before the load, and again once it is quiet after,
 * so work it does after answering (the projector, the writer's last batch) is its phase's. Null
 * when the server has ended.
 */
export async function measureServerCpu<T>(pid: number, load: () => Promise<T>, options: QuietOptions = QUIET): Promise<{ result: T; cpu: ServerCpu | null }> {
  const before = await quietSeconds(pid, options)
  const result = await load()
  const loadEnd = processTreeSeconds(pid)
  const after = await quietSeconds(pid, options)
  if (before === null || loadEnd === null || after === null) return { result, cpu: null }
  return { result, cpu: { seconds: after - before, afterLoadSeconds: after - loadEnd } }
}
