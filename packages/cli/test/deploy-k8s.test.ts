import t from 'tap'
import { loadConfig } from '../src/config.js'
import { containerEnv, containers, find, GOOD_PASSWORD, K8S_FILES, K8S_OTHER_FILES, KNOWN, manifests, podSpec, waybillContainers, type Doc } from './deploy-files.js'

// deploy/k8s: every manifest valid against the Kubernetes schemas, and the topology, the
// configuration and the hardening of deploy/README.md held by the files themselves.
const all = manifests()
const secrets = { 'waybill-eventstore-users/waybill': GOOD_PASSWORD, 'waybill-eventstore-users/waybill-projector': GOOD_PASSWORD }
/** A Waybill container's configuration, with the ConfigMap's placeholder proxy set as an operator would. */
const configOf = (container: Doc) => loadConfig({ ...containerEnv(all, container, secrets), WAYBILL_TRUST_PROXY: '10.244.0.0/16' })
const workload = (kind: string, name: string): Doc => find(all, kind, name)!
const container = (w: Doc, name: string): Doc => containers(w).find((c) => c.name === name)!

t.test('every manifest validates against the Kubernetes schemas (kubernetes-models), and a broken one does not', async (t) => {
  t.ok(K8S_FILES.length >= 12, `${K8S_FILES.length} manifest files`)
  for (const m of [...all, ...manifests(K8S_OTHER_FILES)]) {
    const module = (await import(`kubernetes-models/${m.apiVersion as string}/${m.kind as string}`)) as Record<string, new (data: Doc) => { validate(): void }>
    const Model = module[m.kind as string]
    t.ok(Model, `a schema for ${m.apiVersion as string} ${m.kind as string}`)
    if (Model === undefined) continue
    t.doesNotThrow(() => { new Model(m).validate() }, `${m.kind as string}/${m.metadata.name as string} is valid`)
    t.equal(m.metadata.namespace, m.kind === 'Namespace' ? undefined : m.metadata.name === 'waybill-scrape-config' ? 'monitoring' : 'waybill', `${m.kind as string}/${m.metadata.name as string}: namespace`)
  }
  const kinds = new Set(all.map((m) => m.kind as string))
  for (const kind of ['NetworkPolicy', 'PodDisruptionBudget', 'CronJob', 'Job', 'Ingress', 'StatefulSet', 'Deployment']) t.ok(kinds.has(kind), `a ${kind}`)
  const { NetworkPolicy } = await import('kubernetes-models/networking.k8s.io/v1/NetworkPolicy')
  const policy = find(all, 'NetworkPolicy', 'eventstoredb')!
  t.throws(() => { new NetworkPolicy({ ...policy, spec: { ...(policy.spec as Doc), policyTypes: 'Ingress' } } as never).validate() }, 'the check has teeth')
  const { Deployment } = await import('kubernetes-models/apps/v1/Deployment')
  const ingress = workload('Deployment', 'waybill-ingress')
  t.throws(() => { new Deployment({ ...ingress, spec: { ...(ingress.spec as Doc), replicas: 'two' } } as never).validate() })
})

t.test('topology: writes on any node without SQLite shared; reads beside the one projector, on its own ReadWriteOnce volume', async (t) => {
  const ingress = workload('Deployment', 'waybill-ingress')
  t.ok(ingress.spec.replicas >= 2, 'more than one ingress pod')
  t.same(container(ingress, 'ingress').args, ['serve', '--no-projector'])
  const volumes = (w: Doc): Doc[] => podSpec(w).volumes as Doc[]
  t.ok(volumes(ingress).find((v) => v.name === 'data')?.emptyDir, 'an ingress pod keeps no read model: its data dir is its own emptyDir')
  const projector = workload('StatefulSet', 'waybill-projector')
  t.equal(projector.spec.replicas, 1, 'one projector: one writer of each SQLite file')
  t.same(container(projector, 'projector').args, ['projector'])
  t.same(container(projector, 'reader').args, ['serve', '--no-projector'], 'the reader serves the projector\'s files from the same pod')
  t.same(projector.spec.volumeClaimTemplates[0].spec.accessModes, ['ReadWriteOnce'], 'the SQLite files are on a ReadWriteOnce volume')
  const shared = find(all, 'PersistentVolumeClaim', 'waybill-shared')!
  t.same(shared.spec.accessModes, ['ReadWriteMany'], 'images and replacement keys are shared')
  for (const { workload: w, container: c } of waybillContainers(all)) {
    const config = configOf(c)
    const dataMount = (c.volumeMounts as Doc[]).find((m) => config.dataDir.startsWith(`${m.mountPath as string}/`))
    const volume = volumes(w).find((v) => v.name === dataMount?.name)
    t.notOk(volume?.persistentVolumeClaim?.claimName === 'waybill-shared', `${w.metadata.name as string}/${c.name as string}: the data dir (SQLite) is not on the shared claim`)
  }
  // The data-dir init container: the data dir made by the service's user, images and replacement keys linked in.
  const init = container(ingress, 'data-dir')
  t.match(init.command[2], /mkdir -p -m 0700 \/var\/lib\/waybill\/data .*ln -sfn \/var\/lib\/waybill-shared\/blobs \/var\/lib\/waybill\/data\/blobs/)
  t.same(container(projector, 'data-dir').command, init.command, 'the same in the projector\'s pod')
  t.equal(configOf(container(ingress, 'ingress')).dataDir, '/var/lib/waybill/data')
})

t.test('every Waybill container runs on a configuration loadConfig accepts, naming only known variables', async (t) => {
  t.ok(waybillContainers(all).length >= 4, 'ingress, projector, reader, backup')
  for (const { workload: w, container: c } of waybillContainers(all)) {
    const name = `${w.metadata.name as string}/${c.name as string}`
    const env = containerEnv(all, c, secrets)
    const referenced = Object.values(env).join(' ')
    for (const variable of Object.keys(env)) {
      t.ok(KNOWN.has(variable) || (c.env as Doc[]).some((e) => String(e.value ?? '').includes(`$(${variable})`)) || variable === 'POD_IP', `${name}: ${variable} is a configuration variable or feeds one`)
    }
    t.notOk(referenced.includes('$('), `${name}: every $(…) resolves`)
    const config = configOf(c)
    t.equal(config.store, 'eventstoredb', `${name}: on EventStoreDB`)
    t.equal(config.sandbox, false, `${name}: sandbox off`)
    if (w.kind !== 'CronJob') t.equal(config.metrics.host, '10.244.3.7', `${name}: metrics bind the pod's address, not every interface`)
    t.match(config.eventstoreConnectionString, /^esdb\+discover:\/\/waybill(-projector)?:[0-9a-f]{64}@eventstoredb\.waybill\.svc\.cluster\.local:2113\?tls=true&tlsCAFile=\/certs\/ca\/ca\.crt/, `${name}: its user, discovery through one name, TLS`)
    const mounts = (c.volumeMounts as Doc[]).map((m) => m.mountPath as string)
    t.ok(mounts.some((m) => '/certs/ca/ca.crt'.startsWith(`${m}/`)), `${name}: the CA file is mounted`)
    t.notOk(mounts.includes('/var/lib/waybill-audit-key') && c.name !== 'projector', `${name}: no signing key`)
  }
  t.throws(() => loadConfig(containerEnv(all, container(workload('Deployment', 'waybill-ingress'), 'ingress'), secrets)),
    /^WAYBILL_TRUST_PROXY: "REPLACE_ME" is not an IP address or CIDR range/, 'the shipped WAYBILL_TRUST_PROXY placeholder stops the start until the proxy is named')
  const users = (n: string) => /^esdb\+discover:\/\/([^:]+):/.exec(configOf(container(workload(n === 'ingress' ? 'Deployment' : 'StatefulSet', n === 'ingress' ? 'waybill-ingress' : 'waybill-projector'), n)).eventstoreConnectionString ?? '')?.[1]
  t.equal(users('ingress'), 'waybill', 'the ingress appends as waybill')
  t.equal(users('reader'), 'waybill', 'the reader records key use and revocations as waybill')
  t.equal(users('projector'), 'waybill-projector', 'the projector reads as waybill-projector')
})

t.test('the signing key is mounted into the projector container and nowhere else', async (t) => {
  const holders = all.filter((m) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(m.kind as string))
    .flatMap((w) => {
      const keyVolumes = new Set((podSpec(w).volumes as Doc[] | undefined ?? []).filter((v) => v.secret?.secretName === 'waybill-audit-key').map((v) => v.name as string))
      return containers(w).filter((c) => (c.volumeMounts as Doc[] | undefined ?? []).some((m) => keyVolumes.has(m.name as string))).map((c) => `${w.metadata.name as string}/${c.name as string}`)
    })
  t.same(holders, ['waybill-projector/projector'])
  const projector = container(workload('StatefulSet', 'waybill-projector'), 'projector')
  t.equal(configOf(projector).audit.keyDir, (projector.volumeMounts as Doc[]).find((m) => m.name === 'audit-key')?.mountPath, 'at WAYBILL_AUDIT_KEY_DIR')
})

t.test('probes, limits and ports agree with the configuration; metrics are named by no Service', async (t) => {
  for (const { workload: w, container: c } of waybillContainers(all).filter(({ workload: w }) => w.kind !== 'CronJob')) {
    const name = `${w.metadata.name as string}/${c.name as string}`
    const config = configOf(c)
    const portOf = (ref: string | number): number => typeof ref === 'number' ? ref : (c.ports as Doc[]).find((p) => p.name === ref)?.containerPort as number
    t.ok(c.livenessProbe && c.readinessProbe, `${name}: liveness and readiness`)
    t.ok(c.resources?.limits?.cpu && c.resources?.limits?.memory && c.resources?.requests?.memory, `${name}: requests and limits`)
    if (c.name === 'projector') {
      t.equal(portOf(c.livenessProbe.httpGet.port as string), config.projectorPort, `${name}: probes on WAYBILL_PROJECTOR_PORT`)
      t.match(c.readinessProbe.httpGet, { path: '/readyz' })
    } else {
      t.match(c.livenessProbe.httpGet, { path: '/healthz', scheme: 'HTTPS' })
      t.match(c.readinessProbe.httpGet, { path: '/readyz', scheme: 'HTTPS' })
      t.equal(portOf(c.readinessProbe.httpGet.port as string), config.httpsPort, `${name}: probes on WAYBILL_HTTPS_PORT`)
      t.same((c.ports as Doc[]).map((p) => p.containerPort as number).sort(), [config.httpPort, config.httpsPort, config.metrics.port].sort(), `${name}: ports`)
    }
  }
  for (const service of all.filter((m) => m.kind === 'Service' && (m.metadata.name as string).startsWith('waybill-'))) {
    t.same((service.spec.ports as Doc[]).map((p) => p.targetPort as string), ['https'], `Service ${service.metadata.name as string}: the API port only, never 8080 or metrics`)
  }
})

t.test('hardening: non-root, read-only, no capabilities, no service-account token, pinned images', async (t) => {
  const namespace = find(all, 'Namespace', 'waybill')!
  t.equal(namespace.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted')
  for (const w of all.filter((m) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(m.kind as string))) {
    const spec = podSpec(w)
    const name = w.metadata.name as string
    t.equal(spec.automountServiceAccountToken, false, `${name}: no service-account token`)
    t.equal(spec.securityContext?.runAsNonRoot, true, `${name}: non-root`)
    t.equal(spec.securityContext?.seccompProfile?.type, 'RuntimeDefault', `${name}: seccomp`)
    for (const c of containers(w)) {
      t.equal(c.securityContext?.allowPrivilegeEscalation, false, `${name}/${c.name as string}: no privilege escalation`)
      t.same(c.securityContext?.capabilities?.drop, ['ALL'], `${name}/${c.name as string}: no capabilities`)
      t.match(c.image, /^[a-z0-9./-]+:(\d+\.\d+\.\d+|v\d+\.\d+\.\d+)(@sha256:[0-9a-f]{64})?$/, `${name}/${c.name as string}: ${c.image as string} is pinned to an exact version`)
      if (name !== 'eventstoredb' || c.name !== 'eventstoredb') t.equal(c.securityContext?.readOnlyRootFilesystem, true, `${name}/${c.name as string}: read-only root`)
    }
  }
})

t.test('NetworkPolicies: nothing by default; the API from the controller, metrics from Prometheus, EventStoreDB from Waybill', async (t) => {
  const policy = (name: string): Doc => find(all, 'NetworkPolicy', name)!.spec as Doc
  t.same(policy('default-deny'), { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }, 'every pod: nothing in, nothing out, unless allowed')
  const api = policy('waybill-api')
  t.same((api.ingress as Doc[]).map((r) => (r.ports as Doc[]).map((p) => p.port as number)), [[8443]], 'the API port only')
  t.same(api.ingress[0].from, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], 'from the ingress controller only')
  const apiPods = all.filter((m) => ['Deployment', 'StatefulSet'].includes(m.kind as string) && m.spec.template.metadata.labels['waybill/api'] === 'true').map((m) => m.metadata.name as string).sort()
  t.same(apiPods, ['waybill-ingress', 'waybill-projector'], 'it selects the ingress pods and the reader\'s')
  const metrics = policy('waybill-metrics')
  t.same((metrics.ingress[0].ports as Doc[]).map((p) => p.port as number), [9464, 9465])
  t.match(metrics.ingress[0].from[0], { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }, 'from Prometheus only')
  const store = policy('eventstoredb')
  t.same(store.podSelector, { matchLabels: { 'app.kubernetes.io/name': 'eventstoredb' } })
  t.same(store.ingress[0].from, [{ podSelector: { matchLabels: { 'waybill/eventstore-client': 'true' } } }], 'from Waybill\'s pods')
  const clients = all.filter((m) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(m.kind as string) && (m.kind === 'CronJob' ? m.spec.jobTemplate.spec.template : m.spec.template).metadata.labels['waybill/eventstore-client'] === 'true').map((m) => m.metadata.name as string).sort()
  t.same(clients, ['waybill-backup', 'waybill-esdb-users', 'waybill-ingress', 'waybill-projector'], 'and those are Waybill\'s workloads, nothing else')
  t.same((policy('waybill-to-eventstoredb').egress as Doc[]).map((r) => (r.ports as Doc[]).map((p) => p.port as number)), [[2113]], 'Waybill\'s pods reach EventStoreDB and nothing else')
  const webhooks = policy('waybill-webhooks')
  t.same(webhooks.podSelector, { matchLabels: { 'app.kubernetes.io/name': 'waybill-projector' } }, 'webhooks leave from the projector\'s pod, which delivers them')
  t.same(webhooks.egress, [{
    to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'] } }],
    ports: [{ protocol: 'TCP', port: 443 }],
  }], 'HTTPS to public addresses only: not the cluster, the private ranges or the metadata address')
})

t.test('the Ingress: reads to the reader, the rest to the ingress pods, for the host and for any host, never redirected', async (t) => {
  const ingress = find(all, 'Ingress', 'waybill')!
  t.equal(ingress.metadata.annotations['nginx.ingress.kubernetes.io/ssl-redirect'], 'false')
  t.equal(ingress.metadata.annotations['nginx.ingress.kubernetes.io/backend-protocol'], 'HTTPS')
  const rules = ingress.spec.rules as Doc[]
  t.ok(rules.some((r) => r.host === undefined), 'a rule without a host: plain HTTP to an IP or another name still reaches Waybill')
  const routes = (rule: Doc) => (rule.http.paths as Doc[]).map((p) => `${p.path as string} -> ${p.backend.service.name as string}:${p.backend.service.port.name as string}`)
  t.same(routes(rules[0]!), ['/v1/orders -> waybill-reader:https', '/v1/audit -> waybill-reader:https', '/v1/webhooks -> waybill-reader:https', '/console -> waybill-reader:https', '/ -> waybill-ingress:https'])
  for (const rule of rules) t.same(routes(rule), routes(rules[0]!), `${String(rule.host ?? 'any host')}: the same routes`)
})

t.test('the EventStoreDB users Job, the backup CronJob and the disruption budgets', async (t) => {
  const job = workload('Job', 'waybill-esdb-users')
  const users = container(job, 'esdb-users')
  t.same(users.command, ['node', '/app/deploy/esdb-users.mjs'])
  t.notMatch(JSON.stringify([users.command, users.args]), /PASSWORD=|\$\(ESDB/, 'no password on the command line')
  t.same((users.env as Doc[]).filter((e) => e.valueFrom).map((e) => `${e.name as string}<-${e.valueFrom.secretKeyRef.name as string}/${e.valueFrom.secretKeyRef.key as string}`),
    ['ESDB_ADMIN_PASSWORD<-eventstoredb-admin/password', 'ESDB_WAYBILL_PASSWORD<-waybill-eventstore-users/waybill', 'ESDB_PROJECTOR_PASSWORD<-waybill-eventstore-users/waybill-projector'], 'passwords from the Secrets, through the environment')
  const cron = workload('CronJob', 'waybill-backup')
  const backup = container(cron, 'backup')
  t.match(backup.command[2], /main\.js backup "\/backups\/\$\$\(date /, '`waybill backup /backups/<time>`')
  t.equal(cron.spec.concurrencyPolicy, 'Forbid')
  const claim = (podSpec(cron).volumes as Doc[]).find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName as string
  const projector = workload('StatefulSet', 'waybill-projector')
  t.equal(claim, `${projector.spec.volumeClaimTemplates[0].metadata.name as string}-${projector.metadata.name as string}-0`, 'on the projector\'s own volume')
  t.same(podSpec(cron).affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels, projector.spec.selector.matchLabels, 'on the projector\'s node (ReadWriteOnce)')
  t.equal(configOf(backup).dataDir, configOf(container(projector, 'projector')).dataDir, 'the same data dir')
  t.match(configOf(backup).eventstoreConnectionString, /^esdb\+discover:\/\/waybill-projector:/, 'as the read-only user')
  t.match(find(all, 'PodDisruptionBudget', 'waybill-ingress')?.spec, { minAvailable: 1, selector: { matchLabels: workload('Deployment', 'waybill-ingress').spec.selector.matchLabels as Doc } })
  t.match(find(all, 'PodDisruptionBudget', 'eventstoredb')?.spec, { maxUnavailable: 1, selector: { matchLabels: workload('StatefulSet', 'eventstoredb').spec.selector.matchLabels as Doc } })
})

t.test('EventStoreDB: the CA trusted alone, the admin password from a Secret, certificates for the seed name', async (t) => {
  const set = workload('StatefulSet', 'eventstoredb')
  const c = container(set, 'eventstoredb')
  const env = Object.fromEntries((c.env as Doc[]).map((e) => [e.name as string, e]))
  const trusted = env.EVENTSTORE_TRUSTED_ROOT_CERTIFICATES_PATH?.value as string
  const mount = (c.volumeMounts as Doc[]).find((v) => v.mountPath === trusted)
  t.same((podSpec(set).volumes as Doc[]).find((v) => v.name === mount?.name)?.secret?.items, [{ key: 'ca.crt', path: 'ca.crt' }], 'the trusted-roots directory holds the CA certificate alone')
  t.match(env.EVENTSTORE_DEFAULT_ADMIN_PASSWORD?.valueFrom?.secretKeyRef, { name: 'eventstoredb-admin', key: 'password' })
  t.match(container(set, 'refuse-placeholders').env, [{ name: 'ESDB_ADMIN_PASSWORD', valueFrom: { secretKeyRef: { name: 'eventstoredb-admin', key: 'password' } } }], 'the admin password is checked before the node starts')
  t.match(set.spec.template.metadata.labels, { 'app.kubernetes.io/name': 'eventstoredb' })
})
