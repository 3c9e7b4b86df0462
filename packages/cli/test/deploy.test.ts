import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse, parseAllDocuments } from 'yaml'
import { connectionStringProblem } from '@waybill/event-store/eventstoredb'
import { CONFIG_SCHEMA, loadConfig } from '../src/config.js'

// What can be checked of deploy/ without Docker or a cluster: every file parses, every
// manifest is well-formed, and the environment, ports and probes agree with the service's own
// configuration schema (CONFIG_SCHEMA, loadConfig), so that a renamed variable or port breaks
// this test.
const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy')
const read = (path: string): string => readFileSync(join(DEPLOY, path), 'utf8')
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- YAML documents, read in the shape each assertion then checks
type Doc = Record<string, any>

const KNOWN = new Set(Object.keys(CONFIG_SCHEMA.properties))

/** Compose-style `${VAR}`, `${VAR:-default}`, `${VAR:?message}` filled from example.env. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::[-?]([^}]*))?\}/g, (_all, name: string, fallback?: string) => vars[name] ?? fallback ?? '')
}
const exampleEnv = Object.fromEntries(read('example.env').split('\n')
  .filter((line) => /^[A-Z0-9_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))

t.test('the config schema is what this test believes it is', async (t) => {
  for (const name of ['WAYBILL_STORE', 'EVENTSTORE_CONNECTION_STRING', 'WAYBILL_TRUST_PROXY', 'WAYBILL_HTTPS_PORT', 'WAYBILL_HTTP_PORT', 'WAYBILL_DATA_DIR']) {
    t.ok(KNOWN.has(name), `the schema declares ${name}`)
  }
})

t.test('every Kubernetes manifest has apiVersion, kind and metadata.name', async (t) => {
  const files = readdirSync(join(DEPLOY, 'k8s')).filter((f) => f.endsWith('.yaml'))
  t.ok(files.length >= 7, `${files.length} manifest files`)
  for (const file of files) {
    const docs = parseAllDocuments(read(join('k8s', file)))
    t.ok(docs.length > 0, `${file} has documents`)
    for (const doc of docs) {
      t.same(doc.errors, [], `${file} parses`)
      const m = doc.toJS() as Doc
      t.type(m.apiVersion, 'string', `${file}: apiVersion`)
      t.type(m.kind, 'string', `${file}: kind`)
      t.type(m.metadata?.name, 'string', `${file}: metadata.name`)
      if (m.kind !== 'Namespace') t.equal(m.metadata.namespace, 'waybill', `${file} ${m.kind}/${m.metadata.name} is in the waybill namespace`)
    }
  }
})

function manifests(): Doc[] {
  return readdirSync(join(DEPLOY, 'k8s')).filter((f) => f.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(read(join('k8s', file))).map((d) => d.toJS() as Doc))
}

t.test('the Kubernetes configuration is one loadConfig accepts, naming only variables it knows', async (t) => {
  const all = manifests()
  const configMap = all.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'waybill-config')
  const secret = all.find((m) => m.kind === 'Secret' && m.metadata.name === 'waybill-eventstore')
  t.ok(configMap && secret, 'ConfigMap waybill-config and Secret waybill-eventstore exist')
  const env = { ...configMap!.data, ...secret!.stringData } as Record<string, string>
  for (const name of Object.keys(env)) t.ok(KNOWN.has(name), `${name} is a configuration variable`)
  const config = loadConfig(env)
  t.equal(config.store, 'eventstoredb')
  t.ok(config.trustProxy.length > 0, 'a proxy is trusted, so X-Forwarded-Proto works behind it')
  t.equal(config.host, '0.0.0.0', 'listens beyond the pod\'s loopback')
})

t.test('the ingress Deployment has probes on the key-less endpoints, limits, and matching ports', async (t) => {
  const all = manifests()
  const configMap = all.find((m) => m.kind === 'ConfigMap')!
  const secret = all.find((m) => m.kind === 'Secret' && m.metadata.name === 'waybill-eventstore')!
  const config = loadConfig({ ...configMap.data, ...secret.stringData } as Record<string, string>)
  const deployment = all.find((m) => m.kind === 'Deployment' && m.metadata.name === 'waybill-ingress')
  t.ok(deployment, 'Deployment waybill-ingress')
  t.ok(deployment!.spec.replicas >= 2, 'more than one instance')
  const [container] = deployment!.spec.template.spec.containers as Doc[]
  const portNumber = (ref: string | number): number =>
    typeof ref === 'number' ? ref : (container!.ports as Doc[]).find((p) => p.name === ref)?.containerPort as number
  t.same((container!.ports as Doc[]).map((p) => p.containerPort as number).sort(), [config.httpPort, config.httpsPort, config.metrics.port].sort(), 'container ports are WAYBILL_HTTP(S)_PORT and WAYBILL_METRICS_PORT')
  t.match(container!.livenessProbe?.httpGet, { path: '/healthz', scheme: 'HTTPS' }, 'liveness on /healthz')
  t.match(container!.readinessProbe?.httpGet, { path: '/readyz', scheme: 'HTTPS' }, 'readiness on /readyz')
  t.equal(portNumber(container!.livenessProbe.httpGet.port as string | number), config.httpsPort)
  t.equal(portNumber(container!.readinessProbe.httpGet.port as string | number), config.httpsPort)
  t.same(container!.args, ['serve', '--no-projector'], 'the projector Deployment alone writes the shared read model')
  t.ok(container!.resources?.limits?.cpu && container!.resources?.limits?.memory, 'cpu and memory limits')
  t.ok(container!.resources?.requests?.cpu && container!.resources?.requests?.memory, 'cpu and memory requests')
  t.equal(deployment!.spec.template.spec.securityContext.runAsNonRoot, true)
  const mounts = (container!.volumeMounts as Doc[]).map((v) => v.mountPath as string)
  t.ok(mounts.includes(config.dataDir), 'the data dir (blobs) is a mounted volume')
  const dataVolume = (deployment!.spec.template.spec.volumes as Doc[]).find((v) => v.name === 'data')
  const claim = all.find((m) => m.kind === 'PersistentVolumeClaim' && m.metadata.name === dataVolume?.persistentVolumeClaim?.claimName)
  t.same(claim?.spec.accessModes, ['ReadWriteMany'], 'shared by every instance')
  t.ok(mounts.some((m) => config.tls?.certPath.startsWith(`${m}/`)), 'WAYBILL_TLS_CERT is on a mounted volume')
  const service = all.find((m) => m.kind === 'Service' && m.metadata.name === 'waybill-ingress')
  t.same((service!.spec.ports as Doc[]).map((p) => portNumber(p.targetPort as string | number)).sort(), [config.httpPort, config.httpsPort].sort(), 'the Service targets both listeners, never the metrics port')
})

t.test('the projector Deployment runs `waybill projector` on the same configuration', async (t) => {
  const all = manifests()
  const projector = all.find((m) => m.kind === 'Deployment' && m.metadata.name === 'waybill-projector')
  const [container] = projector!.spec.template.spec.containers as Doc[]
  t.same(container!.args, ['projector'])
  t.same((container!.envFrom as Doc[]).map((e) => (e.configMapRef?.name ?? e.secretRef?.name) as string | undefined), ['waybill-config', 'waybill-eventstore'])
  t.ok(container!.resources?.limits?.memory)
  const configMap = all.find((m) => m.kind === 'ConfigMap')!
  const config = loadConfig({ ...configMap.data, ...all.find((m) => m.metadata.name === 'waybill-eventstore')!.stringData } as Record<string, string>)
  const probePort = container!.livenessProbe?.httpGet?.port as string | undefined
  const health = (container!.ports as Doc[]).find((p) => p.name === probePort)
  t.equal(health?.containerPort, config.projectorPort, 'probes on WAYBILL_PROJECTOR_PORT')
  t.match(container!.livenessProbe.httpGet, { path: '/healthz' })
  t.match(container!.readinessProbe?.httpGet, { path: '/readyz', port: probePort })
  t.equal(config.metrics.host, '0.0.0.0', 'the kubelet reaches the projector\'s listener on the pod address')
})

t.test('every workload has liveness and readiness probes', async (t) => {
  for (const m of manifests().filter((m) => ['Deployment', 'StatefulSet'].includes(m.kind as string))) {
    for (const c of m.spec.template.spec.containers as Doc[]) {
      t.ok(c.livenessProbe, `${m.kind}/${m.metadata.name} ${c.name}: liveness`)
      t.ok(c.readinessProbe, `${m.kind}/${m.metadata.name} ${c.name}: readiness`)
    }
  }
})

t.test('every Kubernetes manifest validates against the Kubernetes schemas', async (t) => {
  // kubernetes-models carries the API's OpenAPI schemas, one model per kind; validate() throws
  // with the failing paths. Core kinds live under `v1`, the others under `<group>/<version>`.
  for (const manifest of manifests()) {
    const apiVersion = manifest.apiVersion as string
    const kind = manifest.kind as string
    const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, new (data: Doc) => { validate(): void }>
    const Model = module[kind]
    t.ok(Model, `a schema for ${apiVersion} ${kind}`)
    if (Model === undefined) continue
    t.doesNotThrow(() => { new Model(manifest).validate() }, `${kind}/${manifest.metadata.name as string} is valid`)
  }
  const deployment = manifests().find((m) => m.kind === 'Deployment')!
  const broken: Doc = { ...deployment, spec: { ...(deployment.spec as Doc), replicas: 'two' } }
  const { Deployment } = await import('kubernetes-models/apps/v1/Deployment')
  t.throws(() => { new Deployment(broken).validate() }, 'and a broken one does not: the check has teeth')
})

t.test('EventStoreDB in Kubernetes: the CA is trusted alone, the admin password is set from a Secret', async (t) => {
  const all = manifests()
  const set = all.find((m) => m.kind === 'StatefulSet' && m.metadata.name === 'eventstoredb')!
  const spec = set.spec.template.spec as Doc
  const [container] = spec.containers as Doc[]
  const env = Object.fromEntries((container!.env as Doc[]).map((e) => [e.name as string, e]))
  const trusted = env.EVENTSTORE_TRUSTED_ROOT_CERTIFICATES_PATH?.value as string
  const mount = (container!.volumeMounts as Doc[]).find((v) => v.mountPath === trusted)
  const volume = (spec.volumes as Doc[]).find((v) => v.name === mount?.name)
  t.same(volume?.secret?.items, [{ key: 'ca.crt', path: 'ca.crt' }], 'the trusted-roots directory holds the CA certificate and nothing else')
  t.notOk((env.EVENTSTORE_CERTIFICATE_FILE?.value as string).startsWith(`${trusted}/`), 'the node certificate is elsewhere')
  t.match(env.EVENTSTORE_DEFAULT_ADMIN_PASSWORD?.valueFrom?.secretKeyRef, { name: 'eventstoredb-admin', key: 'password' })
  t.ok(all.find((m) => m.kind === 'Secret' && m.metadata.name === 'eventstoredb-admin'), 'that Secret is templated')
  const connection = all.find((m) => m.metadata.name === 'waybill-eventstore')!.stringData.EVENTSTORE_CONNECTION_STRING as string
  t.match(connection, /^esdb\+discover:\/\/waybill:[^@]+@eventstoredb\.waybill\.svc\.cluster\.local:2113\?/, 'user waybill, discovery through one DNS name')
})

const compose = parse(read('compose.yaml'), { merge: true }) as Doc
const services = compose.services as Record<string, Doc>
// A compose `environment` value may be a YAML number or boolean; the process gets its text.
type ComposeEnv = Record<string, string | number | boolean>
const WAYBILL_SERVICES = ['ingress', 'projector']

t.test('compose: a 3-node EventStoreDB cluster with TLS, N ingress instances, a projector, a proxy', async (t) => {
  for (const name of ['certs', 'esdb-node1', 'esdb-node2', 'esdb-node3', 'esdb-users', ...WAYBILL_SERVICES, 'proxy']) t.ok(services[name], `service ${name}`)
  t.equal(services.ingress!.deploy.replicas, 2, 'scaling the ingress is one number')
  t.notOk(services.ingress!.networks?.waybill?.ipv4_address, 'ingress instances have no fixed address')
  for (const n of [1, 2, 3]) {
    const env = services[`esdb-node${n}`]!.environment as Record<string, string>
    t.equal(env.EVENTSTORE_CLUSTER_SIZE, '3')
    t.equal(env.EVENTSTORE_CERTIFICATE_FILE, `/certs/node${n}/node.crt`, `node ${n} has its own certificate`)
    t.notOk('EVENTSTORE_INSECURE' in env, 'not insecure')
  }
  t.same(services.ingress!.command, ['serve', '--no-projector'], 'the ingress leaves the shared read model to the projector')
  t.same(services.projector!.command, ['projector'])
  t.match(services.projector!.healthcheck?.test, ['CMD', 'node', '/app/healthcheck.mjs', '--projector'], 'the projector has a health check')
  t.match(read('healthcheck.mjs'), /WAYBILL_PROJECTOR_PORT/)
})

t.test('compose: Waybill services use only known variables, with values loadConfig accepts', async (t) => {
  for (const name of WAYBILL_SERVICES) {
    const raw = services[name]!.environment as ComposeEnv
    for (const variable of Object.keys(raw)) t.ok(KNOWN.has(variable), `${name}: ${variable} is a configuration variable`)
    const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), exampleEnv)]))
    const config = loadConfig(env)
    t.equal(config.store, 'eventstoredb', `${name} runs on EventStoreDB`)
    // esdb://, not esdb+discover://: with several hosts the client would use the first only.
    const hosts = /^esdb:\/\/waybill:[^@]+@([^?]+)\?/.exec(config.eventstoreConnectionString ?? '')?.[1]?.split(',') ?? []
    t.same(hosts.map((h) => h.split(':')[0]), ['esdb-node1', 'esdb-node2', 'esdb-node3'], `${name} gossips over the three nodes as the user waybill`)
    t.equal(connectionStringProblem(config.eventstoreConnectionString ?? ''), null, `${name}: a connection string the adapter accepts`)
    t.equal(config.metrics.port, 9464, `${name}: /metrics on a private port`)
    t.match(config.eventstoreConnectionString, /tls=true/)
    const mounts = (services[name]!.volumes as string[]).map((v) => v.split(':')[1])
    t.ok(mounts.includes(config.dataDir), `${name}: WAYBILL_DATA_DIR is the shared volume`)
    const tlsCa = /tlsCAFile=([^&]+)/.exec(config.eventstoreConnectionString ?? '')?.[1] ?? ''
    t.ok(mounts.some((m) => tlsCa.startsWith(`${m}/`)), `${name}: the CA file is mounted`)
    if (name === 'ingress') {
      t.same((services[name]!.expose as string[]).map(Number).sort(), [config.httpPort, config.httpsPort, config.metrics.port].sort(), `${name} exposes WAYBILL_HTTP(S)_PORT and the metrics port, on the private network`)
    }
    t.notOk((services[name]!.volumes as string[]).some((v) => v.startsWith('certs:')), `${name} mounts no node or CA key`)
  }
  const dataVolumes = WAYBILL_SERVICES.map((name) => (services[name]!.volumes as string[]).find((v) => v.endsWith(':/var/lib/waybill')))
  t.ok(dataVolumes.every((v) => v === dataVolumes[0]), 'every instance mounts the same data volume (blobs are shared)')
})

t.test('compose: WAYBILL_TRUST_PROXY names the proxy\'s fixed address, and only that', async (t) => {
  const subnet = compose.networks.waybill.ipam.config[0].subnet as string
  const proxyAddress = services.proxy!.networks.waybill.ipv4_address as string
  t.equal(proxyAddress.split('.').slice(0, 3).join('.'), subnet.split('.').slice(0, 3).join('.'), 'on the fixed subnet')
  for (const name of WAYBILL_SERVICES) {
    const config = loadConfig(Object.fromEntries(Object.entries(services[name]!.environment as ComposeEnv)
      .map(([k, v]) => [k, interpolate(String(v), exampleEnv)])))
    t.same(config.trustProxy, [proxyAddress], `${name} trusts the proxy`)
  }
  const addresses = Object.values(services).map((s) => s.networks?.waybill?.ipv4_address as string | undefined).filter(Boolean)
  t.equal(new Set(addresses).size, addresses.length, 'no two services share an address')
  t.same(services.proxy!.ports, ['443:443', '80:80'], 'the proxy is the only published service')
  for (const [name, service] of Object.entries(services)) if (name !== 'proxy') t.notOk(service.ports, `${name} publishes nothing`)
})

t.test('the proxy forwards to every ingress instance on WAYBILL_HTTPS_PORT, never redirects plain HTTP, never serves /metrics', async (t) => {
  const caddyfile = read('proxy/Caddyfile')
  const config = loadConfig(Object.fromEntries(Object.entries(services.ingress!.environment as ComposeEnv)
    .map(([k, v]) => [k, interpolate(String(v), exampleEnv)])))
  const upstream = /dynamic a ([a-z0-9-]+) (\d+)/.exec(caddyfile)
  t.equal(upstream?.[1], 'ingress', 'every address of the name `ingress`')
  t.equal(Number(upstream?.[2]), config.httpsPort, 'on WAYBILL_HTTPS_PORT')
  t.match(caddyfile, /^\s*respond \/metrics\* 404$/m, '/metrics is not answered from outside')
  t.notOk((services.proxy!.volumes as string[]).some((v) => v.startsWith('certs:') || v.startsWith('waybill-tls:')), 'the proxy mounts no key')
  t.match(caddyfile, /http:\/\/\{\$WAYBILL_PUBLIC_HOST/, 'a plain-HTTP site that proxies')
  t.notMatch(caddyfile.replace(/#.*$/gm, ''), /\bredir\b/, 'no redirect')
  t.match(caddyfile, /health_uri \/readyz/)
  const mounted = (services.proxy!.volumes as string[]).map((v) => v.split(':')[0])
  t.ok(mounted.includes('./proxy/Caddyfile'))
})

t.test('the Dockerfile builds in stages, runs as non-root and checks /healthz', async (t) => {
  const dockerfile = read('Dockerfile')
  t.ok((dockerfile.match(/^FROM /gm) ?? []).length >= 2, 'multi-stage')
  t.match(dockerfile, /^USER 10001/m)
  t.match(dockerfile, /^HEALTHCHECK .*healthcheck\.mjs/m)
  t.match(read('healthcheck.mjs'), /'\/healthz'/)
  const env = Object.fromEntries([...dockerfile.matchAll(/(WAYBILL_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]))
  for (const name of Object.keys(env)) t.ok(KNOWN.has(name), `Dockerfile sets ${name}, a configuration variable`)
  const config = loadConfig(env)
  const exposed = /^EXPOSE (.+)$/m.exec(dockerfile)?.[1]?.split(/\s+/).map(Number) ?? []
  t.same(exposed.sort(), [config.httpPort, config.httpsPort, 9464, config.projectorPort].sort(), 'EXPOSE matches the configured ports (and the metrics ports)')
  t.match(dockerfile, /ENTRYPOINT \["node", "\/app\/packages\/cli\/dist\/main\.js"\]/)
})
