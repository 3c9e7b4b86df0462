export { default as serveConsole, CONSOLE_ROOT, type ConsoleOptions } from './serve-console.js'
export { CONSOLE_CSP } from './console-csp.js'
