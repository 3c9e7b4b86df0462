// Every cited document and section must exist: `pnpm lint` runs this after knip.
//
// It reads the sources, tests, scripts, deploy files and Markdown of the repository and checks
// - each citation written from the repository root, `docs/contract.md#order-of-checks` or
//   `packages/http/README.md#tests`, in a comment or in prose: the file exists and, when an anchor
//   is given, has a heading whose GitHub slug is that anchor;
// - each relative Markdown link, `[…](../docs/audit.md#leaves)` or `[…](#limits)`, the same way,
//   from the file that holds it.
// It prints one line per dead citation and exits 1 when there is one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import assert from 'node:assert/strict'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ROOTS = ['packages', 'scripts', 'deploy', 'docs']
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.tap', 'coverage', 'build'])
const BINARY = /\.(png|jpe?g|webp|gif|ico|sqlite|pem|woff2?|tsbuildinfo)$/i

/**
 * GitHub's anchor for a heading: the rendered text in lower case, without the characters that are
 * neither letters, digits, `_`, `-` nor spaces, and spaces as `-`. The rendered text has no
 * Markdown: `` `waybill audit` `` is "waybill audit", `[text](url)` is "text".
 */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

// The slug rules this check rests on: a wrong slug would call live anchors dead, or dead ones live.
assert.equal(slug('Audit log'), 'audit-log')
assert.equal(slug('`waybill audit`'), 'waybill-audit')
assert.equal(slug('Verifying an event store: `waybill store check`'), 'verifying-an-event-store-waybill-store-check')
assert.equal(slug('Read model generations and rebuild'), 'read-model-generations-and-rebuild')
assert.equal(slug('Deterministic event ids and idempotency'), 'deterministic-event-ids-and-idempotency')
assert.equal(slug('Keys, step by step (1–3)'), 'keys-step-by-step-13')
assert.equal(slug('[Limits](#limits) and WAYBILL_RATE_LIMIT'), 'limits-and-waybill_rate_limit')

/** The anchors of a Markdown file: its headings' slugs, a repeated one with `-1`, `-2`, … */
function anchorsOf(text) {
  const anchors = new Set()
  const seen = new Map()
  let fence = null
  for (const line of text.split('\n')) {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (opening !== null) {
      const marker = opening[1]
      if (fence === null) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null
      continue
    }
    if (fence !== null) continue
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)
    if (heading === null) continue
    const base = slug(heading[1])
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

function filesUnder(dir) {
  const files = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...filesUnder(join(dir, entry.name)))
    } else if (entry.isFile() && !BINARY.test(entry.name)) {
      files.push(join(dir, entry.name))
    }
  }
  return files
}

const rootMarkdown = readdirSync(ROOT).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, name))
const files = [...rootMarkdown, ...ROOTS.flatMap((dir) => filesUnder(join(ROOT, dir)))]

const anchorCache = new Map()
function anchorsOfFile(path) {
  if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')))
  return anchorCache.get(path)
}

const dead = []
function check(from, line, target, base) {
  const hash = target.indexOf('#')
  const pathPart = hash === -1 ? target : target.slice(0, hash)
  const anchor = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1))
  const path = pathPart === '' ? from : resolve(base, decodeURIComponent(pathPart))
  const where = `${relative(ROOT, from)}:${line}`
  if (!existsSync(path)) return dead.push(`${where}: ${target}: no such file`)
  if (anchor === '') return
  if (!path.endsWith('.md') || statSync(path).isDirectory()) return
  if (!anchorsOfFile(path).has(anchor)) dead.push(`${where}: ${target}: no heading "#${anchor}" in ${relative(ROOT, path)}`)
}

// A citation from the root: a path into docs/ or packages/, or a root file, naming a .md file.
const CITATION = /(?<![\w./*@-])((?:docs|packages|deploy)\/[\w./-]*\.md|README\.md)(#[\w-]+)?/g
// A Markdown link or image whose target is in the repository (no scheme, not protocol-relative).
const LINK = /\]\((?![a-z][a-z0-9+.-]*:|\/\/)([^)\s]+)(?:\s+"[^"]*")?\)/gi

for (const file of files) {
  const text = readFileSync(file, 'utf8')
  if (text.includes('\0')) continue
  const markdown = file.endsWith('.md')
  text.split('\n').forEach((raw, index) => {
    let line = raw
    if (markdown) {
      for (const match of raw.matchAll(LINK)) check(file, index + 1, match[1], dirname(file))
      line = raw.replace(LINK, ']')
    }
    for (const match of line.matchAll(CITATION)) check(file, index + 1, match[0], ROOT)
  })
}

if (dead.length > 0) {
  console.error(`${dead.length} dead citation(s) of a document or a section:\n${dead.join('\n')}`)
  process.exit(1)
}
console.log(`check-doc-anchors: every cited document and section exists (${files.length} files read)`)
