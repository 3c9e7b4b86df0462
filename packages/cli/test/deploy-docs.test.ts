import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { parseAllDocuments } from 'yaml'
import { loadConfig } from '../src/config.js'
import { compose, containers, DEPLOY, find, GOOD_PASSWORD, K8S_FILES, KNOWN, manifests, podSpec, read, services, type Doc } from './deploy-files.js'

// deploy/README.md's commands against the files they name, the placeholders' refusal (the shell
// the manifests carry, run here), the image and the Node it runs, the EventStoreDB users' rights.
const all = manifests()
const readme = read('README.md')
/** Every command of deploy/README.md: lines of its sh blocks, and inline `docker compose …`/`kubectl …`. */
const commands = [
  ...[...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')),
  ...[...readme.matchAll(/`((?:docker compose|kubectl) [^`]+)`/g)].map((m) => m[1]!),
].map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => /^(docker|kubectl|sed|es-gencert-cli|openssl)\b/.test(line))

t.test('every docker compose command names a service, profile or option compose.yaml has', async (t) => {
  const compose_ = commands.filter((c) => c.startsWith('docker compose'))
  t.ok(compose_.length >= 10, `${compose_.length} compose commands`)
  for (const command of compose_) {
    const words = command.split(/\s+/).slice(2)
    const profile = words.indexOf('--profile')
    if (profile !== -1) t.ok(Object.values(services).some((s) => (s.profiles as string[] | undefined)?.includes(words[profile + 1]!)), `${command}: profile ${words[profile + 1]!}`)
    const verb = words.find((w) => ['up', 'ps', 'run', 'logs', 'exec'].includes(w))
    t.ok(verb, `${command}: a compose verb`)
    const rest = words.slice(words.indexOf(verb!) + 1)
    const scale = rest.indexOf('--scale')
    if (scale !== -1) t.ok(services[rest[scale + 1]!.split('=')[0]!], `${command}: scales a service`)
    const named = verb === 'run' ? [rest.find((w) => !w.startsWith('-'))!] : verb === 'logs' ? rest.filter((w) => !w.startsWith('-')) : verb === 'up' ? rest.filter((w) => !w.startsWith('-') && !w.includes('=')) : []
    for (const service of named) t.ok(services[service], `${command}: service ${service} exists`)
    if (verb === 'run' && rest.includes('tools')) {
      const sub = rest[rest.indexOf('tools') + 1]!
      t.ok(['keys', 'store', 'backup', 'rebuild', 'webhooks'].includes(sub), `${command}: a waybill command`)
      if (sub === 'backup') t.match(rest[rest.indexOf('tools') + 2], /^\/backups\//, 'into the backups volume')
    }
  }
  t.ok((services.tools!.volumes as string[]).includes('waybill-backups:/backups'))
  t.match(readme, /docker compose up -d --build/)
  t.notMatch(readme, /ingress-1|ingress-2/, 'no container names that compose does not make')
})

t.test('every kubectl command names files, workloads, containers and Secrets the manifests have', async (t) => {
  const kubectl = commands.filter((c) => c.startsWith('kubectl'))
  t.ok(kubectl.length >= 12, `${kubectl.length} kubectl commands`)
  const created = new Map<string, string[]>()
  for (const command of kubectl) {
    for (const [, file] of command.matchAll(/-f (deploy\/k8s\/\S*)/g)) t.ok(existsSync(join(DEPLOY, '..', file!)), `${command}: ${file!} exists`)
    const secret = /create secret (?:generic|tls) (\S+)(.*)$/.exec(command)
    if (secret) created.set(secret[1]!, command.includes('secret tls') ? ['tls.crt', 'tls.key'] : [...secret[2]!.matchAll(/--from-(?:literal|file)=([\w.-]+?)(?:=|\s|$)/g)].map((m) => m[1]!))
    const exec = /exec (\S+) -c (\S+) -- node \/app\/packages\/cli\/dist\/main\.js (\w+)/.exec(command)
    if (exec) {
      const [pod, container] = [exec[1]!, exec[2]!]
      const set = all.find((m) => m.kind === 'StatefulSet' && pod === `${m.metadata.name as string}-0`)
      t.ok(set && containers(set).some((c) => c.name === container), `${command}: pod ${pod} has a container ${container}`)
    }
    const job = /--from=cronjob\/(\S+)/.exec(command)
    if (job) t.ok(find(all, 'CronJob', job[1]!), `${command}: the CronJob exists`)
    const wait = /job\/(\S+)/.exec(command)
    if (wait && command.includes('wait')) t.ok(find(all, 'Job', wait[1]!), `${command}: the Job exists`)
  }
  // Every Secret a manifest uses is created by a command, with the keys the manifests read.
  const used = new Map<string, Set<string>>()
  const use = (name: string, key?: string) => { const keys = used.get(name) ?? new Set(); if (key) keys.add(key); used.set(name, keys) }
  for (const w of all.filter((m) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(m.kind as string))) {
    for (const v of podSpec(w).volumes as Doc[] | undefined ?? []) if (v.secret) for (const item of v.secret.items as Doc[] | undefined ?? [{}]) use(v.secret.secretName as string, item.key as string | undefined)
    for (const c of containers(w)) for (const e of c.env as Doc[] | undefined ?? []) if (e.valueFrom?.secretKeyRef) use(e.valueFrom.secretKeyRef.name as string, e.valueFrom.secretKeyRef.key as string)
  }
  const ingress = find(all, 'Ingress', 'waybill')!
  use(ingress.spec.tls[0].secretName as string, 'tls.crt')
  use((ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-ssl-secret'] as string).split('/')[1]!, 'ca.crt')
  for (const [name, keys] of used) {
    t.ok(created.has(name), `Secret ${name} is created by deploy/README.md`)
    for (const key of keys) t.ok(created.get(name)?.includes(key), `Secret ${name}: key ${key}`)
  }
  t.match(readme, /-dns-names 'eventstoredb\.waybill\.svc\.cluster\.local,\*\.eventstoredb\.waybill\.svc\.cluster\.local'/, 'the node certificate covers the seed name and each node')
  const apiNames = /-out \.\/api -dns-names '([^']+)'/.exec(readme)?.[1]?.split(',') ?? []
  t.ok(apiNames.includes(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-ssl-name'] as string), 'the API certificate names what the controller checks')
  t.ok(commands.includes('kubectl apply -f deploy/k8s/'), 'the folder is applied whole')
  t.ok(K8S_FILES.every((f) => !f.includes('secret')), 'and it holds no Secret template that would overwrite real ones')
  t.match(commands.find((c) => c.startsWith('sed')), /image: waybill:0\.1\.0/, 'the image rename matches the manifests\' image')
  t.ok(all.some((m) => JSON.stringify(m).includes('"image":"waybill:0.1.0"')))
})

/** The refuse-placeholders script of compose (unescaped) and of each Kubernetes init container. */
const scripts: [string, string][] = [
  ['compose preflight', (services.preflight!.entrypoint[2] as string).replaceAll('$$', '$')],
  ...all.filter((m) => ['StatefulSet', 'Job'].includes(m.kind as string)).flatMap((w) => containers(w).filter((c) => c.name === 'refuse-placeholders')
    .map((c): [string, string] => [`${w.metadata.name as string} init`, c.command[2] as string])),
]

t.test('no working default password: the placeholders and guessable passwords stop the start (the scripts, run)', async (t) => {
  t.equal(scripts.length, 3, 'compose, the EventStoreDB StatefulSet, the users Job')
  for (const [, script] of scripts) t.equal(script, scripts[0]![1], 'one rule everywhere')
  t.notMatch(scripts[0]![1], /\$\(/, 'nothing Kubernetes would expand')
  const run = (shell: string, value: string | undefined) => spawnSync(shell, ['-c', scripts[0]![1], 'check', 'PW'], { env: { PATH: process.env.PATH, ...(value === undefined ? {} : { PW: value }) }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  for (const shell of ['sh', 'bash']) {
    t.equal(run(shell, GOOD_PASSWORD).status, 0, `${shell}: openssl rand -hex 32 passes`)
    for (const [value, why] of [[undefined, 'unset'], ['', 'empty'], ['REPLACE_ME: openssl rand -hex 32', 'the template'], ['change-me-to-a-long-random-string', 'the old example'], ['changeit', 'EventStoreDB\'s default'], ['0123456789abcdef0123', 'short'], [`${GOOD_PASSWORD}@x`, 'needs encoding']] as const) {
      const result = run(shell, value)
      t.equal(result.status, 1, `${shell}: refuses ${why}`)
      t.match(result.stderr, /^refusing to start: PW /m)
    }
  }
  const template = manifests(['templates/secrets.yaml'])
  for (const secret of template) for (const [key, value] of Object.entries(secret.stringData as Record<string, string>)) t.match(value, /^REPLACE_ME/, `${secret.metadata.name as string}/${key}: a placeholder, never a value`)
  for (const name of ['ESDB_ADMIN_PASSWORD', 'ESDB_WAYBILL_PASSWORD', 'ESDB_PROJECTOR_PASSWORD']) {
    t.match(read('example.env'), new RegExp(`^${name}=$`, 'm'), `example.env leaves ${name} empty`)
    t.match(read('compose.yaml'), new RegExp(`\\$\\{${name}:\\?`), `compose refuses ${name} unset`)
    t.ok((services.preflight!.entrypoint as string[]).includes(name), `preflight checks ${name}`)
  }
  const configMap = find(all, 'ConfigMap', 'waybill-config')!.data as Record<string, string>
  t.equal(configMap.WAYBILL_SANDBOX, 'off')
  t.throws(() => loadConfig(configMap), /^WAYBILL_TRUST_PROXY: "REPLACE_ME" is not an IP address or CIDR range/, 'the trusted proxy must be named before anything starts')
})

t.test('the EventStoreDB users: the writer cannot delete or truncate, the projector cannot write', async (t) => {
  const users = await import(pathToFileURL(join(DEPLOY, 'esdb-users.mjs')).href) as { DEFAULT_ACL: Record<string, Record<string, string | string[]>>; ALL_READERS: string[]; WRITER: string; READER: string }
  const acl = users.DEFAULT_ACL.$userStreamAcl!
  const holds = (right: string, user: string) => ([acl[right]].flat() as string[]).includes(user)
  t.ok(holds('$r', users.WRITER) && holds('$w', users.WRITER), 'the writer reads and appends')
  t.ok(holds('$r', users.READER) && !holds('$w', users.READER), 'the projector reads only')
  for (const right of ['$d', '$mr', '$mw']) t.same(acl[right], '$admins', `${right}: admins only`)
  for (const right of ['$r', '$w', '$d', '$mr', '$mw']) t.same(users.DEFAULT_ACL.$systemStreamAcl![right], '$admins', `system streams ${right}: admins only`)
  t.same(users.ALL_READERS, [users.WRITER, users.READER, '$admins'])
  const source = read('esdb-users.mjs')
  t.notMatch(source, /process\.argv\[2/, 'reads nothing from its arguments')
  t.same(services['esdb-users']!.entrypoint, ['node', '/app/deploy/esdb-users.mjs'])
  t.match(read('Dockerfile'), /^COPY deploy\/esdb-users\.mjs \.\/deploy\/esdb-users\.mjs$/m, 'the image carries it beside packages/')
  const failed = spawnSync(process.execPath, [join(DEPLOY, 'esdb-users.mjs')], { env: { PATH: process.env.PATH }, encoding: 'utf8' })
  t.equal(failed.status, 1)
  t.match(failed.stderr, /ESDB_URL \(or ESDB_URL_FILE\) is not set/, 'without its environment it says what is missing and stops')
})

t.test('the image: the tested Node LTS by digest, every workspace manifest, non-root, checks /healthz', async (t) => {
  const dockerfile = read('Dockerfile')
  const image = /^ARG NODE_IMAGE=node:(\d+)\.(\d+)\.(\d+)-bookworm-slim@sha256:[0-9a-f]{64}$/m.exec(dockerfile)
  t.ok(image, 'node:<exact version> pinned by digest')
  t.same((dockerfile.match(/^FROM .*$/gm) ?? []), ['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE} AS runtime'], 'both stages on it')
  const engines = (JSON.parse(readFileSync(join(DEPLOY, '..', 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
  t.match(engines, new RegExp(`\\^${image?.[1] ?? 'x'}\\.\\d+\\.0`), 'engines names the image\'s Node')
  t.match(engines, /\^20\.19\.0/, 'and the machine\'s, on which the suites run')
  t.match(readFileSync(join(DEPLOY, '..', 'scripts', 'smoke-node.mjs'), 'utf8'), /ARG NODE_IMAGE=node:\(\\d\+\)/, 'the smoke test runs the image\'s major')
  t.match(readFileSync(join(DEPLOY, '..', '.ci', 'run'), 'utf8'), /^node scripts\/smoke-node\.mjs$/m, 'and CI runs it')
  const manifestsCopied = [...dockerfile.matchAll(/^COPY packages\/([\w-]+)\/package\.json/gm)].map((m) => m[1]!).sort()
  const workspace = ['bench', 'cli', 'client', 'console', 'domain', 'event-store', 'http', 'keys', 'merkle', 'projector']
  t.same(manifestsCopied, workspace, 'every workspace package\'s manifest before the frozen install')
  t.match(read('Dockerfile.dockerignore'), /^!packages\/bench\/package\.json$/m)
  t.match(dockerfile, /^USER 10001/m)
  t.match(dockerfile, /^HEALTHCHECK .*healthcheck\.mjs/m)
  t.match(dockerfile, /ENTRYPOINT \["node", "\/app\/packages\/cli\/dist\/main\.js"\]/)
  const env = Object.fromEntries([...dockerfile.matchAll(/(WAYBILL_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]))
  for (const name of Object.keys(env)) t.ok(KNOWN.has(name), `Dockerfile sets ${name}, a configuration variable`)
  const config = loadConfig(env)
  const exposed = /^EXPOSE (.+)$/m.exec(dockerfile)?.[1]?.split(/\s+/).map(Number) ?? []
  t.same(exposed.sort(), [config.httpPort, config.httpsPort, 9464, config.projectorPort].sort())
  t.match(read('healthcheck.mjs'), /'\/healthz'/)
  t.match(read('healthcheck.mjs'), /WAYBILL_PROJECTOR_PORT/)
  t.ok(parseAllDocuments(read('compose.yaml')).every((d) => d.errors.length === 0) && compose.name === 'waybill', 'compose.yaml parses')
})
