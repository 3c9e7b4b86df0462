#!/usr/bin/env node
// Builds the console (packages/console: `vite build` into dist/web) when its sources are newer
// than its build, so `pnpm build` (run by `pnpm start`, `pnpm test` and `pnpm lint`) costs a few
// stat calls when nothing changed.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('../packages/console/', import.meta.url).pathname
const built = join(root, 'dist', 'web', 'index.html')
const sources = [
  join(root, 'vite.config.ts'),
  join(root, 'package.json'),
  ...readdirSync(join(root, 'web'), { recursive: true }).map((name) => join(root, 'web', String(name))),
  // The leaf bytes use the domain's canonical JSON, bundled into the console.
  new URL('../packages/domain/dist/canonical-json.js', import.meta.url).pathname,
]
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0
if (sources.some((file) => statSync(file).mtimeMs > builtAt)) {
  const run = spawnSync(join(root, 'node_modules', '.bin', 'vite'), ['build'], { cwd: root, stdio: 'inherit' })
  process.exitCode = run.status ?? 1
}
