#!/usr/bin/env node
// Builds the console (packages/console: `vite build` into dist/web) when its sources are newer
// than its build, so `pnpm build` (run by `pnpm start`, `pnpm test` and `pnpm lint`) costs a few
// stat calls when nothing changed.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('../packages/console/', import.meta.url).pathname
const built = join(root, 'dist', 'web', 'index.html')
const packages = new URL('../packages/', import.meta.url).pathname
const filesUnder = (dir) => readdirSync(dir, { recursive: true }).map((name) => join(dir, String(name)))
const sources = [
  join(root, 'vite.config.ts'),
  join(root, 'package.json'),
  ...filesUnder(join(root, 'web')),
  // Bundled into the console from the other packages' builds: the generated API client, the
  // audit formats and verifiers (@waybill/merkle/verify), and the domain's canonical JSON they use.
  join(packages, 'client', 'dist', 'index.js'),
  ...filesUnder(join(packages, 'merkle', 'dist', 'verify')),
  join(packages, 'domain', 'dist', 'canonical-json.js'),
]
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0
if (sources.some((file) => statSync(file).mtimeMs > builtAt)) {
  const run = spawnSync(join(root, 'node_modules', '.bin', 'vite'), ['build'], { cwd: root, stdio: 'inherit' })
  process.exitCode = run.status ?? 1
}
