/**
 * The URL of a worker module beside `base` (the caller's import.meta.url). Under tap the sources
 * run as TypeScript (each worker thread registers the TypeScript hooks again, through the
 * `--import` it inherits: scripts/tap/), so it is the `.ts` file; built, `.js`.
 */
export function siblingWorkerUrl(name: string, base: string): URL {
  return new URL(`./${name}.${base.endsWith('.ts') ? 'ts' : 'js'}`, base)
}
