/** What a long operator command reports as it goes. */
export interface ProgressSnapshot {
  readonly done: number
  /** Best estimate of the total; may grow while the command runs. */
  readonly total: number
  readonly elapsedMs: number
}

export interface ProgressOutput {
  write(text: string): unknown
  readonly isTTY?: boolean
}

const number = (n: number): string => Math.round(n).toLocaleString('en-US')

function eta(snapshot: ProgressSnapshot, rate: number): string {
  if (rate <= 0 || snapshot.total <= snapshot.done) return '0s'
  const seconds = Math.ceil((snapshot.total - snapshot.done) / rate)
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`
}

/**
 * A progress bar (events, events/s, ETA) redrawn in place on a terminal, and plain progress
 * lines at most every `lineEveryMs` otherwise (logs and CI keep every line).
 */
export function progressReporter(output: ProgressOutput, label: string, options: { lineEveryMs?: number } = {}) {
  const tty = output.isTTY === true
  const every = tty ? 100 : options.lineEveryMs ?? 2000
  let lastDraw = -Infinity
  const render = (snapshot: ProgressSnapshot): string => {
    const rate = snapshot.elapsedMs > 0 ? (snapshot.done * 1000) / snapshot.elapsedMs : 0
    const fraction = snapshot.total > 0 ? Math.min(1, snapshot.done / snapshot.total) : 1
    const figures = `${number(snapshot.done)}/${number(snapshot.total)} ${label}  ${number(rate)} ${label}/s  ETA ${eta(snapshot, rate)}`
    if (!tty) return `${(fraction * 100).toFixed(1)}% ${figures}\n`
    const width = 30
    const filled = Math.round(fraction * width)
    return `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}% ${figures}\u001b[K`
  }
  return {
    update(snapshot: ProgressSnapshot): void {
      if (snapshot.elapsedMs - lastDraw < every) return
      lastDraw = snapshot.elapsedMs
      output.write(render(snapshot))
    },
    /** Draws the final state and ends the line. */
    finish(snapshot: ProgressSnapshot): void {
      output.write(render(snapshot))
      if (tty) output.write('\n')
    },
  }
}

/** What a rebuild reports after each batch (`RebuildProgress` of @waybill/projector). */
interface RebuildSnapshot {
  readonly events: number
  readonly position: bigint
  readonly head: bigint
  readonly elapsedMs: number
}

/**
 * The progress of `waybill rebuild` and `waybill audit rebuild`. Positions count every event of
 * the log (keys too), so the total of order events is estimated from the share read so far.
 */
export function rebuildProgress(output: ProgressOutput) {
  const progress = progressReporter(output, 'events')
  return {
    onProgress: (p: RebuildSnapshot): void => {
      const total = p.position > 0n ? Math.round((p.events * Number(p.head)) / Number(p.position)) : p.events
      progress.update({ done: p.events, total, elapsedMs: p.elapsedMs })
    },
    /** Draws the final state; answers "N events in S s (R events/s)". */
    finish: (events: number, elapsedMs: number): string => {
      progress.finish({ done: events, total: events, elapsedMs })
      const seconds = elapsedMs / 1000
      const rate = seconds > 0 ? Math.round(events / seconds) : events
      return `${events} events in ${seconds.toFixed(2)} s (${rate} events/s)`
    },
  }
}
