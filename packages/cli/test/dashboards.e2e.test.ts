import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { addBody, clientFor, completeBody } from './https-client.js'
import { runWaybill, startServe } from '../src/testing.js'

// The Grafana dashboard and the Prometheus alert rules in deploy/ name metrics by hand: this
// test reads every expression they hold and checks each metric (and each label it names) against
// what a running `waybill serve` exports, so that a renamed or dropped metric breaks here, not
// on an operator's empty panel or silent alert.
const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy')

interface Panel { readonly type: string; readonly title: string; readonly panels?: Panel[]; readonly targets?: Array<{ expr: string }>; readonly datasource?: { uid: string } }
interface Rule { readonly alert: string; readonly expr: string; readonly for?: string; readonly labels?: { severity?: string }; readonly annotations?: { summary?: string } }

const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'waybill.json'), 'utf8')) as {
  uid: string; panels: Panel[]; templating: { list: Array<{ name: string; definition?: string }> }
}
const rules = (parse(readFileSync(join(DEPLOY, 'prometheus', 'alerts.yaml'), 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> })
  .groups.flatMap((group) => group.rules)
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row')

/** Every PromQL expression, with where it comes from. */
const expressions: Array<{ where: string; expr: string }> = [
  ...panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr }))),
  ...dashboard.templating.list.filter((v) => v.definition !== undefined)
    .map((v) => ({ where: `variable ${v.name}`, expr: (v.definition ?? '').replace(/^label_values\((\w+),\s*(\w+)\)$/, '$1{$2=""}') })),
  ...rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
]

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan'])
/** Prometheus' own series, which no application exports. */
const PROMETHEUS_OWN = new Set(['up'])
/** Labels Prometheus adds to every series it scrapes (`le` is a histogram bucket's bound). */
const TARGET_LABELS = new Set(['instance', 'job', 'le'])

/** The metric names a PromQL expression reads: identifiers that are not functions, keywords, labels or Grafana variables. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '')
  return [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)]
    .filter((m) => !bare.slice((m.index) + m[0].length).trimStart().startsWith('(') && !KEYWORDS.has(m[0]))
    .map((m) => m[0])
}

/** The label names an expression matches on or groups by. */
function labelNames(expr: string): string[] {
  const inMatchers = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...(m[1] ?? '').matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1] ?? ''))
  const inLists = [...expr.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) => (m[1] ?? '').split(',').map((l) => l.trim()).filter(Boolean))
  return [...inMatchers, ...inLists]
}

t.test('the dashboard and the alert rules are well-formed', async (t) => {
  t.equal(dashboard.uid, 'waybill')
  t.ok(panels.length >= 20, `${panels.length} panels`)
  t.ok(panels.every((panel) => panel.datasource?.uid === '${datasource}' && (panel.targets ?? []).length > 0), 'each panel queries the chosen Prometheus')
  t.ok(rules.length >= 10, `${rules.length} alert rules`)
  for (const rule of rules) {
    t.match(rule, { alert: /^Waybill[A-Z]\w+$/, expr: String, labels: { severity: /^(page|ticket)$/ }, annotations: { summary: String } }, rule.alert)
    if (rule.for !== undefined) t.match(rule.for, /^\d+[smh]$/, `${rule.alert}: for`)
  }
  t.same(metricNames('sum by (le, route) (rate(waybill_x_bucket{route!~"/a|/b", instance=~"$instance"}[$__rate_interval])) / on (instance) waybill_y and time() - z > 3600'),
    ['waybill_x_bucket', 'waybill_y', 'z'], 'the reader finds metrics, not functions, labels or variables')
  t.same(labelNames('sum by (le, route) (m{route!~"/a", status=~"5.."}) * on (instance, operation) n'), ['route', 'status', 'le', 'route', 'instance', 'operation'])
})

t.test('every metric and label the dashboard and the alert rules use is exported by a running waybill serve', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-dashboards-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // A webhook endpoint, for the webhook alerts: nothing listens there, its attempts fail.
  t.equal((await runWaybill(['webhooks', 'add', 'http://127.0.0.1:9/waybill'], { env: { WAYBILL_DATA_DIR: dir } })).code, 0)
  const server = await startServe({ WAYBILL_DATA_DIR: dir, WAYBILL_AUDIT_KEY_DIR: join(dir, '..', `${dir.split('/').at(-1) ?? ''}-key`) })
  t.teardown(() => server.stop())
  t.teardown(() => rm(`${dir}-key`, { recursive: true, force: true }))
  const metricsUrl = /metrics at (http:\/\/[^\s"]+)/.exec(server.output())?.[1] ?? ''
  const client = await clientFor(server.httpsUrl, dir)
  t.teardown(() => client.close())
  // Traffic enough for every family to have samples: requests and errors by route, an image, a
  // head over the events, an operator's run.
  t.equal((await client.post(addBody('D-1'))).status, 201)
  t.equal((await client.post(completeBody('D-1'))).status, 202)
  t.equal((await client.post(completeBody('nowhere'))).status, 404)
  t.equal((await client.get('/v1/orders/D-1', null)).status, 401)
  const scrape = async () => (await fetch(metricsUrl)).text()
  let text = await scrape()
  // The projector thread reports its status every 500 ms; the head may come sooner.
  for (let i = 0; i < 100 && !(/^waybill_audit_head_tree_size 2$/m.test(text) && /^waybill_audit_up 1$/m.test(text)); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    text = await scrape()
  }
  const rebuilt = await runWaybill(['rebuild'], { env: { WAYBILL_DATA_DIR: dir } })
  t.equal(rebuilt.code, 0, rebuilt.stderr)
  // The backup the alert on a backup too old waits for (operation="backup").
  t.teardown(() => rm(`${dir}-backup`, { recursive: true, force: true }))
  const backedUp = await runWaybill(['backup', `${dir}-backup`], { env: { WAYBILL_DATA_DIR: dir } })
  t.equal(backedUp.code, 0, backedUp.stderr)
  // The images are counted on the first scrape, and reported once counted.
  await scrape()
  text = await scrape()

  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']))
  const samples = new Map<string, Set<string>>()
  /** Each metric's `label="value"` pairs. */
  const values = new Map<string, Set<string>>()
  for (const m of text.matchAll(/^([A-Za-z_:][\w:]*)(?:\{([^}]*)\})? \S+$/gm)) {
    const labels = samples.get(m[1] ?? '') ?? new Set<string>()
    const pairs = values.get(m[1] ?? '') ?? new Set<string>()
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels.add(l[1] ?? '')
      pairs.add(`${l[1] ?? ''}="${l[2] ?? ''}"`)
    }
    samples.set(m[1] ?? '', labels)
    values.set(m[1] ?? '', pairs)
  }
  const family = (name: string): string | undefined => {
    if (types.has(name)) return name
    const base = name.replace(/_(bucket|sum|count)$/, '')
    return types.get(base) === 'histogram' && base !== name ? base : undefined
  }
  const used = new Set<string>()
  for (const { where, expr } of expressions) {
    const names = metricNames(expr)
    t.ok(names.length > 0, `${where}: reads a metric`)
    for (const name of names) {
      used.add(name)
      if (PROMETHEUS_OWN.has(name)) continue
      t.ok(family(name) !== undefined, `${where}: ${name} is exported`)
      t.ok(samples.has(name), `${where}: ${name} has samples`)
    }
    const labels = new Set(names.flatMap((name) => [...(samples.get(name) ?? [])]))
    for (const label of labelNames(expr)) {
      if (!TARGET_LABELS.has(label)) t.ok(labels.has(label), `${where}: label ${label} is on ${names.join(', ')}`)
    }
    // A matcher on one value (operation="backup") selects samples a run of waybill gives.
    for (const pair of [...expr.matchAll(/\b(\w+)="([^"$]+)"/g)].map((m) => m[0])) {
      t.ok(names.some((name) => values.get(name)?.has(pair)), `${where}: ${pair} has samples`)
    }
  }
  // What an operator should see is on the dashboard.
  for (const name of ['waybill_http_request_duration_seconds_bucket', 'waybill_errors_total', 'waybill_append_duration_seconds_bucket', 'waybill_group_commit_batch_size_bucket',
    'waybill_projector_lag_events', 'waybill_projector_up', 'waybill_audit_head_age_seconds', 'waybill_audit_signing_blocked', 'waybill_data_dir_free_bytes', 'waybill_data_bytes',
    'waybill_ready', 'waybill_operation_last_success_timestamp_seconds', 'waybill_build_info']) {
    t.ok(used.has(name), `${name} is used`)
  }
})
