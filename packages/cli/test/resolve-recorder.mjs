// Module-resolution hooks (node:module register): each resolved URL, one per line, to a log file.
// Written synchronously, so the log is complete when the process exits.
import { appendFileSync } from 'node:fs'

let log = ''

export function initialize(data) {
  log = data.log
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context)
  appendFileSync(log, `${resolved.url}\n`)
  return resolved
}
