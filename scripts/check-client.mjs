#!/usr/bin/env node
// Part of `pnpm lint` (after the build): the OpenAPI document checked in at
// packages/client/openapi.json is the one the server serves, the client's types are generated from
// it as they are checked in, and Redocly's linter finds no error and no warning in it
// (redocly.yaml). Regenerate both with `pnpm openapi`. (knip.json ignores @redocly/cli: it is
// run from here by path, which knip cannot see.)
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const client = join(root, 'packages', 'client')
const bin = (name, where = root) => join(where, 'node_modules', '.bin', name)
const dir = mkdtempSync(join(tmpdir(), 'waybill-client-check-'))
const stale = []
try {
  const served = execFileSync(process.execPath, [join(root, 'packages', 'cli', 'dist', 'main.js'), 'openapi'], { encoding: 'utf8' })
  if (served !== readFileSync(join(client, 'openapi.json'), 'utf8')) stale.push('packages/client/openapi.json differs from the document the server serves')
  writeFileSync(join(dir, 'openapi.json'), served)
  execFileSync(bin('openapi-typescript', client), [join(dir, 'openapi.json'), '--output', join(dir, 'openapi.ts')], { stdio: 'ignore' })
  if (readFileSync(join(dir, 'openapi.ts'), 'utf8') !== readFileSync(join(client, 'src', 'openapi.ts'), 'utf8')) {
    stale.push('packages/client/src/openapi.ts differs from what openapi-typescript generates')
  }
  // Redocly exits 0 on warnings; its JSON report counts them, and any problem fails the check.
  const report = spawnSync(bin('redocly'), ['lint', '--format', 'json', join(dir, 'openapi.json')], { cwd: root, encoding: 'utf8' })
  const lint = JSON.parse(report.stdout.slice(report.stdout.indexOf('{')))
  for (const problem of lint.problems) {
    stale.push(`redocly ${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location?.[0]?.pointer ?? ''})`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (stale.length > 0) {
  process.stderr.write(`${stale.join('\n')}\nRun \`pnpm openapi\` and commit the result (and fix what Redocly reports).\n`)
  process.exitCode = 1
}
