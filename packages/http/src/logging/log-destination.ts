import { writeSync } from 'node:fs'

/** Where the app's log lines go: pino takes any object with `write`. */
export interface LogDestination {
  write(line: string): void
}

/**
 * The log's destination on a file descriptor (stdout by default), written synchronously and
 * never retried. pino's default destination (sonic-boom 4) buffers, and at process exit flushes
 * synchronously in a loop that retries every failed write, EPIPE included: a server whose log
 * reader had gone away spun there for minutes after SIGTERM. Here nothing is buffered, so there
 * is nothing to flush at exit; once the reader is gone (EPIPE) lines are dropped, and a line the
 * descriptor cannot take right now (EAGAIN, a full non-blocking pipe) is dropped too rather than
 * stalling every request behind it. Node makes a stdout pipe blocking on Linux, so a slow reader
 * still slows the log down rather than losing it.
 */
export function logDestination(fd = 1): LogDestination {
  let gone = false
  return {
    write(line) {
      if (gone) return
      try {
        const bytes = Buffer.from(line)
        // A pipe may take part of a line; the rest follows.
        for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'EPIPE' || code === 'EBADF') gone = true
        else if (code !== 'EAGAIN') throw error
      }
    },
  }
}
