import t from 'tap'
import { parse } from 'yaml'
import { connectionStringProblem } from '@waybill/event-store/eventstoredb'
import { loadConfig } from '../src/config.js'
import { compose, KNOWN, manifests, read, serviceEnv, services, type Doc } from './deploy-files.js'

// deploy/compose.yaml and the Caddyfile: the topology of deploy/README.md on one Docker host.
const API = ['ingress', 'reader']
const WAYBILL = ['ingress', 'projector', 'reader', 'tools']
const mounts = (name: string): string[] => (services[name]!.volumes as string[]).map((v) => v.split(':')[1] ?? v)
const volumeAt = (name: string, path: string): string | undefined => (services[name]!.volumes as string[]).find((v) => v.split(':')[1] === path)?.split(':')[0]

t.test('compose: the services deploy/README.md names, in the order it says', async (t) => {
  t.same(Object.keys(services).sort(), ['certs', 'esdb-node1', 'esdb-node2', 'esdb-node3', 'esdb-users', 'ingress', 'preflight', 'projector', 'prometheus', 'proxy', 'reader', 'tools'].sort())
  t.same(services.ingress!.command, ['serve', '--no-projector'])
  t.same(services.reader!.command, ['serve', '--no-projector'])
  t.same(services.projector!.command, ['projector'])
  t.equal(services.ingress!.deploy.replicas, 2, 'scaling the writes is one number')
  t.same(services.certs!.depends_on, { preflight: { condition: 'service_completed_successfully' } }, 'nothing starts before the passwords are checked')
  t.same(Object.keys(services['esdb-node1']!.depends_on as Doc), ['certs'])
  for (const name of ['ingress', 'projector', 'reader']) t.same(services[name]!.depends_on, { 'esdb-users': { condition: 'service_completed_successfully' } }, `${name} waits for its users`)
  t.same(services.tools!.profiles, ['tools'], 'tools starts only when run')
  t.same(services.prometheus!.profiles, ['monitoring'])
  t.match(services.projector!.healthcheck?.test, ['CMD', 'node', '/app/healthcheck.mjs', '--projector'])
})

t.test('compose: the SQLite files live on the projector\'s volume, read on its host by the reader; the writes share only plain files', async (t) => {
  t.equal(volumeAt('projector', '/var/lib/waybill'), 'waybill-read')
  t.equal(volumeAt('reader', '/var/lib/waybill'), 'waybill-read', 'the reader reads the projector\'s files')
  t.ok((services.ingress!.volumes as string[]).includes('/var/lib/waybill'), 'each ingress instance has a scratch data dir of its own')
  for (const name of API) {
    t.equal(volumeAt(name, '/var/lib/waybill/blobs'), 'waybill-blobs', `${name}: shared images`)
    t.equal(volumeAt(name, '/var/lib/waybill/replaced-keys'), 'waybill-replaced-keys', `${name}: shared replacement keys`)
  }
  const holders = Object.entries(services).filter(([, s]) => (s.volumes as string[] | undefined ?? []).some((v) => v.startsWith('waybill-audit-key:'))).map(([n]) => n)
  t.same(holders, ['projector'], 'the signing key is the projector\'s alone')
  t.equal(serviceEnv('projector').WAYBILL_AUDIT_KEY_DIR, '/var/lib/waybill-audit-key')
  t.notOk(read('Dockerfile').includes('VOLUME ["/var/lib/waybill", "/var/lib/waybill-audit-key"]'), 'the image gives no container a key volume of its own')
})

t.test('compose: every Waybill service runs on a configuration loadConfig accepts, hardened', async (t) => {
  for (const name of WAYBILL) {
    const env = serviceEnv(name)
    for (const variable of Object.keys(env)) t.ok(KNOWN.has(variable), `${name}: ${variable} is a configuration variable`)
    const config = loadConfig(env)
    t.equal(config.store, 'eventstoredb')
    t.equal(config.sandbox, false, `${name}: sandbox off`)
    t.equal(config.metrics.port, 9464, `${name}: metrics on their own port`)
    const connection = config.eventstoreConnectionString ?? ''
    t.equal(connectionStringProblem(connection), null, `${name}: a connection string the adapter accepts`)
    const user = /^esdb:\/\/([^:]+):[0-9a-f]{64}@esdb-node1:2113,esdb-node2:2113,esdb-node3:2113\?tls=true&tlsCAFile=([^&]+)/.exec(connection)
    t.equal(user?.[1], name === 'projector' ? 'waybill-projector' : 'waybill', `${name}: its EventStoreDB user, over the three nodes, TLS`)
    t.ok(mounts(name).some((m) => (user?.[2] ?? '').startsWith(`${m}/`)), `${name}: the CA file is mounted`)
    t.same(config.trustProxy, [services.proxy!.networks.edge.ipv4_address], `${name}: trusts the proxy's fixed address, and only that`)
    const s = services[name]!
    t.equal(s.read_only, true, `${name}: read-only root`)
    t.same(s.cap_drop, ['ALL'], `${name}: no capabilities`)
    t.same(s.security_opt, ['no-new-privileges:true'])
    t.equal(s.logging?.options?.['max-size'], '10m', `${name}: rotated logs`)
    t.notOk((s.volumes as string[]).some((v) => v.startsWith('certs:')), `${name}: no node or CA key`)
  }
  t.ok(services.ingress!.deploy.resources.limits.memory && services.reader!.deploy.resources.limits.memory, 'memory limits')
})

t.test('compose: only the proxy is published; EventStoreDB only on the store network; metrics never published', async (t) => {
  t.same(services.proxy!.ports, ['443:443', '80:80'])
  for (const [name, s] of Object.entries(services)) if (name !== 'proxy') t.notOk(s.ports, `${name} publishes nothing`)
  const on = (network: string) => Object.entries(services).filter(([, s]) => ((Array.isArray(s.networks) ? s.networks : Object.keys((s.networks ?? {}) as Doc)) as string[]).includes(network)).map(([n]) => n).sort()
  t.same(on('store'), ['esdb-node1', 'esdb-node2', 'esdb-node3', 'esdb-users', 'ingress', 'projector', 'reader', 'tools'], 'only Waybill reaches EventStoreDB')
  t.same(on('edge'), ['ingress', 'proxy', 'reader'], 'the proxy reaches the API processes, not the store')
  t.equal(compose.networks.store.internal, true)
  t.equal(compose.networks.metrics.internal, true)
  t.same(on('webhooks'), ['projector'], 'the projector, which delivers the webhooks, alone has a way out')
  t.notOk(compose.networks.webhooks.internal, 'to the receivers')
  const subnet = compose.networks.edge.ipam.config[0].subnet as string
  t.equal((services.proxy!.networks.edge.ipv4_address as string).split('.').slice(0, 3).join('.'), subnet.split('.').slice(0, 3).join('.'), 'the proxy\'s fixed address is on the edge subnet')
  for (const n of [1, 2, 3]) {
    const env = services[`esdb-node${n}`]!.environment as Record<string, string>
    t.equal(env.EVENTSTORE_CERTIFICATE_FILE, `/certs/node${n}/node.crt`)
    t.notOk('EVENTSTORE_INSECURE' in env, 'not insecure')
    t.match(read('compose.yaml'), new RegExp(`-ip-addresses 127\\.0\\.0\\.1,172\\.30\\.240\\.1\\$\\$n`), 'the node certificates name their fixed store addresses')
    t.equal(services[`esdb-node${n}`]!.networks.store.ipv4_address, `172.30.240.1${n}`)
  }
  const images = Object.values(services).map((s) => s.image as string)
  for (const image of images) t.match(image, /^[a-z0-9./-]+:(v?\d+\.\d+\.\d+)$/, `${image}: an exact version, never latest`)
  t.ok(images.includes(`waybill:${(JSON.parse(read('../packages/cli/package.json')) as { version: string }).version}`), 'the Waybill image is tagged with the package version')
})

t.test('the proxy: reads to the reader, the rest to every ingress instance, plain HTTP for any Host, never redirected, never /metrics', async (t) => {
  const caddyfile = read('proxy/Caddyfile')
  const code = caddyfile.replace(/#.*$/gm, '')
  const sites = [...code.matchAll(/^([^\s(}][^{\n]*?)[ \t]*\{[ \t]*$/gm)].map((m) => m[1]!)
  t.same(sites, ['{$WAYBILL_PUBLIC_HOST}:443', 'http://'], 'one HTTPS site for the public name, one plain-HTTP site for every host')
  t.equal(code.match(/^\s*import waybill\s*$/gm)?.length, 2, 'both serve the same routes')
  t.match(code, /^\s*auto_https disable_redirects\s*$/m, 'no automatic redirect to HTTPS')
  t.notMatch(code, /\bredir\b/, 'no redirect')
  t.match(code, /@metrics path \/metrics \/metrics\/\*\s*handle @metrics \{\s*respond 404/, '/metrics is not answered from outside')
  t.match(code, /@reads path \/v1\/orders \/v1\/orders\/\* \/v1\/audit\/\* \/v1\/webhooks\/\* \/console \/console\/\*\s*handle @reads \{\s*reverse_proxy reader:8443/, 'reads to the reader')
  const upstream = /dynamic a ([a-z0-9-]+) (\d+)/.exec(code)
  t.equal(upstream?.[1], 'ingress', 'every address of the name `ingress`')
  t.equal(Number(upstream?.[2]), loadConfig(serviceEnv('ingress')).httpsPort, 'on WAYBILL_HTTPS_PORT')
  t.equal(code.match(/tls_trust_pool file \/trust\/ingress-ca\.crt/g)?.length, 2, 'both upstreams checked against the API CA')
  t.match(read('compose.yaml'), /-dns-names ingress,reader,localhost/, 'whose certificate names both')
  t.notOk((services.proxy!.volumes as string[]).some((v) => /^(certs|waybill-tls):/.test(v)), 'the proxy mounts no key')
  t.same(services.proxy!.depends_on, { ingress: { condition: 'service_healthy' }, reader: { condition: 'service_healthy' } })
})

t.test('Prometheus scrapes every metrics listener, in compose and in Kubernetes', async (t) => {
  const config = parse(read('prometheus/prometheus.yml')) as Doc
  const targets = (config.scrape_configs as Doc[]).flatMap((job) => [
    ...(job.static_configs as Doc[] | undefined ?? []).flatMap((s) => s.targets as string[]),
    ...(job.dns_sd_configs as Doc[] | undefined ?? []).flatMap((d) => (d.names as string[]).map((n) => `${n}:${d.port as number}`)),
  ]).sort()
  t.same(targets, [`ingress:${loadConfig(serviceEnv('ingress')).metrics.port}`, `projector:${loadConfig(serviceEnv('projector')).projectorPort}`, `reader:${loadConfig(serviceEnv('reader')).metrics.port}`])
  t.same(services.prometheus!.volumes, ['./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './prometheus/alerts.yaml:/etc/prometheus/alerts.yaml:ro', 'prometheus-data:/prometheus'])
  t.same(config.rule_files, ['/etc/prometheus/alerts.yaml'], 'the alert rules, mounted beside the configuration, are loaded')
  t.ok((parse(read('prometheus/alerts.yaml')) as Doc).groups[0].rules.length > 0, 'and hold rules')
  t.same(services.prometheus!.networks, ['metrics'])
  const k8s = parse((manifests(['monitoring/prometheus-scrape.yaml'])[0]!.data as Record<string, string>)['waybill.yml']!) as Doc
  t.match(JSON.stringify(k8s.scrape_configs[0].relabel_configs), /"regex":"metrics\|projector"/, 'Kubernetes: the container ports named metrics and projector')
})
