import { createLogger } from '@waybill/http/observability'
import type { Output } from './command.js'

/** What a long-running command says to its operator, whatever LOG_LEVEL is. */
export interface OperatorLines {
  info(message: string, fields?: object): void
  warn(message: string, fields?: object): void
}

/**
 * The lines `waybill serve` and `waybill projector` write at start (where they listen, what they
 * made) and now and then (the projector's status). On a terminal they are text, for a person
 * reading them; anywhere else (a container, a service manager, a pipe) they are pino's JSON lines
 * at info or warn, beside the process's log lines and in their shape, so that one parser reads
 * the whole stream. Written whatever LOG_LEVEL says, as they always were.
 */
export function operatorLines(stdout: Output, stderr: Output): OperatorLines {
  if (stdout.isTTY === true) {
    return {
      info: (message) => stdout.write(`${message}\n`),
      warn: (message) => stderr.write(`${message}\n`),
    }
  }
  const log = createLogger({ level: 'info', destination: stdout })
  return {
    info: (message, fields = {}) => log.info(fields, message),
    warn: (message, fields = {}) => log.warn(fields, message),
  }
}
