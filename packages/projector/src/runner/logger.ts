/** The few logger methods the projector uses; pino's and Fastify's loggers fit. */
export interface ProjectorLogger {
  info(object: object, message?: string): void
  warn(object: object, message?: string): void
  error(object: object, message?: string): void
}

export const silentLogger: ProjectorLogger = { info() {}, warn() {}, error() {} }
