export { PREFLIGHT_CHECKS, runPreflight, scratchCategory, type PreflightOptions, type PreflightResult } from './run-preflight.js'
export { preflightContext, type PreflightCheck, type PreflightContext } from './check.js'
