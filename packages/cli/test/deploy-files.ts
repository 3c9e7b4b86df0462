import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, parseAllDocuments } from 'yaml'
import { CONFIG_SCHEMA } from '../src/config.js'

// What the deploy tests read: deploy/'s files, parsed. No Docker and no cluster here, so the
// tests check by parsing, by the service's own configuration schema, and by running the shell
// snippets the manifests carry.
export const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy')
export const read = (path: string): string => readFileSync(join(DEPLOY, path), 'utf8')
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- YAML documents, read in the shape each assertion then checks
export type Doc = Record<string, any>

export const KNOWN = new Set(Object.keys(CONFIG_SCHEMA.properties))
/** A password of the kind deploy/README.md asks for (`openssl rand -hex 32`). */
export const GOOD_PASSWORD = '5f0c2a9e8b7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4c'

/** The manifests `kubectl apply -f deploy/k8s/` applies (the folder, not its subfolders). */
export const K8S_FILES = readdirSync(join(DEPLOY, 'k8s')).filter((f) => f.endsWith('.yaml')).sort()
/** And those applied apart: the Secrets' templates (never), Prometheus' jobs (in its namespace). */
export const K8S_OTHER_FILES = ['templates/secrets.yaml', 'monitoring/prometheus-scrape.yaml']

export function manifests(files: readonly string[] = K8S_FILES): Doc[] {
  return files.flatMap((file) => parseAllDocuments(read(join('k8s', file))).map((d) => d.toJS() as Doc))
}
export const find = (all: readonly Doc[], kind: string, name: string): Doc | undefined =>
  all.find((m) => m.kind === kind && m.metadata?.name === name)

/** Every container of a workload's pod template (Deployment, StatefulSet, Job, CronJob), init containers first. */
export function podSpec(workload: Doc): Doc {
  return (workload.kind === 'CronJob' ? workload.spec.jobTemplate.spec.template.spec : workload.spec.template.spec) as Doc
}
export function containers(workload: Doc): Doc[] {
  const spec = podSpec(workload)
  return [...(spec.initContainers as Doc[] | undefined ?? []), ...(spec.containers as Doc[])]
}

/**
 * A container's environment as Kubernetes would give it: the ConfigMaps of `envFrom`, then `env`
 * in order (`$(NAME)` expanded from what is defined before, a Secret's key from the template
 * unless `secrets` says otherwise, `status.podIP` as a pod address).
 */
export function containerEnv(all: readonly Doc[], container: Doc, secrets: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const from of container.envFrom as Doc[] | undefined ?? []) {
    Object.assign(env, find(all, 'ConfigMap', from.configMapRef?.name as string)?.data as Record<string, string>)
  }
  const templates = manifests(['templates/secrets.yaml'])
  for (const entry of container.env as Doc[] | undefined ?? []) {
    const ref = entry.valueFrom?.secretKeyRef as Doc | undefined
    const field = entry.valueFrom?.fieldRef?.fieldPath as string | undefined
    env[entry.name as string] = ref !== undefined
      ? secrets[`${ref.name as string}/${ref.key as string}`] ?? (find(templates, 'Secret', ref.name as string)?.stringData?.[ref.key as string] as string)
      : field === 'status.podIP' ? '10.244.3.7'
        : String(entry.value).replace(/\$\((\w+)\)/g, (all, name: string) => env[name] ?? all)
  }
  return env
}

/** Waybill's containers: those whose image is Waybill's and whose command is the service's. */
export function waybillContainers(all: readonly Doc[]): { workload: Doc; container: Doc }[] {
  return all.filter((m) => ['Deployment', 'StatefulSet', 'CronJob'].includes(m.kind as string))
    .flatMap((workload) => (podSpec(workload).containers as Doc[])
      .filter((c) => (c.image as string).includes('waybill:')).map((container) => ({ workload, container })))
}

export const compose = parse(read('compose.yaml'), { merge: true }) as Doc
export const services = compose.services as Record<string, Doc>
/** Compose-style `${VAR}`, `${VAR:-default}`, `${VAR:?message}` filled from `vars`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::[-?]([^}]*))?\}/g, (_all, name: string, fallback?: string) => vars[name] ?? fallback ?? '')
}
/** What example.env sets, with the passwords an operator would fill in. */
const filledEnv: Record<string, string> = Object.fromEntries(read('example.env').split('\n')
  .filter((line) => /^[A-Z0-9_]+=/.test(line))
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1) || GOOD_PASSWORD]))
/** A compose service's environment as its container gets it. */
export function serviceEnv(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(services[name]!.environment as Record<string, string | number | boolean>)
    .map(([k, v]) => [k, interpolate(String(v), filledEnv)]))
}
