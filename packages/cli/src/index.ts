export * from './config.js'
export type { CliCommand } from './command.js'
export { closeOnSignals } from './shutdown.js'
