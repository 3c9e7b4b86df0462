import { pino, type LevelWithSilent, type Logger } from 'pino'
import { logDestination, type LogDestination } from './log-destination.js'

export interface LoggerOptions {
  readonly level: LevelWithSilent
  /** Where the lines go: stdout (log-destination.ts) unless told. */
  readonly destination?: LogDestination
}

/**
 * The one log format of `waybill serve` and `waybill projector`: pino's JSON lines (`level` a
 * number, `time` in epoch milliseconds, `pid`, `hostname`, `msg`), so one parser reads both.
 * The API key header is redacted should any line ever carry the request's headers.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino({
    level: options.level,
    redact: ['req.headers["service-api-key"]', 'headers["service-api-key"]'],
  }, options.destination ?? logDestination())
}
