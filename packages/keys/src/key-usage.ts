/** Writes one key's use; rejects when it could not. */
export type RecordUseFn = (keyId: string, usedAt: Date) => Promise<void>

/** Told when a use could not be written; the request that used the key was answered long before. */
export type UseNotRecorded = (error: unknown, keyId: string) => void

/** The default: one line on stderr, for a key ring made without a logger (the ingress passes its own). */
export const reportToStderr: UseNotRecorded = (error, keyId) => {
  process.stderr.write(`waybill: could not record a use of key ${keyId}: ${error instanceof Error ? error.message : String(error)}\n`)
}

/**
 * Notes each key's latest use in memory and writes them in the background, once per interval, so
 * that authenticating never waits for a write and a store that cannot take one never fails a
 * request: a failure is handed to `onFailure` (the ingress logs it), and the key's next use is
 * noted afresh. The timer is unref'd (it never keeps a process alive) and runs only while uses
 * wait to be written.
 */
export class UseRecorder {
  private readonly pending = new Map<string, Date>()
  private timer: NodeJS.Timeout | null = null
  private closed = false

  constructor(
    private readonly record: RecordUseFn,
    private readonly onFailure: UseNotRecorded,
    private readonly intervalMs: number,
  ) {}

  /** Remembers that `keyId` was used at `at`; synchronous and allocation-light, for the hot path. */
  note(keyId: string, at: Date): void {
    if (this.closed) return
    this.pending.set(keyId, at)
    if (this.timer !== null) return
    this.timer = setTimeout(() => void this.flush(), this.intervalMs)
    this.timer.unref()
  }

  /** Writes every use noted so far; never rejects. */
  async flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    const batch = [...this.pending]
    this.pending.clear()
    await Promise.all(batch.map(async ([keyId, at]) => {
      try {
        await this.record(keyId, at)
      } catch (error) {
        this.onFailure(error, keyId)
      }
    }))
  }

  /** Writes what is noted and notes nothing more (the store is about to close). */
  async close(): Promise<void> {
    this.closed = true
    await this.flush()
  }
}
