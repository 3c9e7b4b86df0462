import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { CONFIG_SCHEMA, ConfigError, loadConfig, type WaybillConfig, type WaybillEnvironment } from '../src/config.js'

const DEFAULTS: WaybillConfig = {
  dataDir: resolve('./data'),
  httpsPort: 8443,
  httpPort: 8080,
  host: '127.0.0.1',
  tls: null,
  trustProxy: [],
  store: 'sqlite',
  eventstoreConnectionString: null,
  logLevel: 'info',
  metrics: { host: '127.0.0.1', port: 9464 },
  projectorPort: 9465,
  rateLimit: { max: 1000, windowMs: 1000 },
  addressRateLimit: 5000,
  maxConnections: 4096,
  connectionLimits: { perAddress: 256, plainConnections: 64 },
  failedKeysPerAddress: 20,
  tlsPolicy: { minVersion: 'TLSv1.2' },
  sandbox: true,
  audit: { keyDir: join(homedir(), '.config', 'waybill', 'audit-key'), headEveryEvents: 1000, headEveryMs: 10000 },
  subjectKeyDir: `${resolve('./data')}.subject-keys`,
  retention: null,
  webhooks: { retrySchedule: null, timeoutMs: 10000 },
}

type Property = { type?: string; enum?: string[]; default?: string | number | boolean; minimum?: number; maximum?: number; description?: string }
const PROPERTIES = CONFIG_SCHEMA.properties as unknown as Record<string, Property>
const NAMES = Object.keys(PROPERTIES)

function refuses(t: Test, env: Record<string, string>, variable: string, message: RegExp): void {
  t.throws(() => loadConfig(env), { name: 'ConfigError', variable, message }, `${JSON.stringify(env)} is refused, naming ${variable}`)
}

t.test('nothing set: the defaults', async (t) => {
  t.same(loadConfig({}), DEFAULTS)
})

t.test('the subject key dir is beside the data dir unless set, never inside it; retention takes hours or days', async (t) => {
  t.equal(loadConfig({ WAYBILL_DATA_DIR: '/srv/waybill' }).subjectKeyDir, '/srv/waybill.subject-keys')
  t.equal(loadConfig({ WAYBILL_SUBJECT_KEY_DIR: '/etc/waybill/subject-keys' }).subjectKeyDir, '/etc/waybill/subject-keys')
  refuses(t, { WAYBILL_DATA_DIR: '/srv/waybill', WAYBILL_SUBJECT_KEY_DIR: '/srv/waybill/keys' }, 'WAYBILL_SUBJECT_KEY_DIR', /must be outside WAYBILL_DATA_DIR/)
  t.same(loadConfig({ WAYBILL_ERASE_AFTER: '90d' }).retention, { keepMs: 90 * 86_400_000, policy: 'retention 90d' })
  t.same(loadConfig({ WAYBILL_ERASE_AFTER: '36h' }).retention, { keepMs: 36 * 3_600_000, policy: 'retention 36h' })
  for (const bad of ['0d', '90', '3w', 'forever']) refuses(t, { WAYBILL_ERASE_AFTER: bad }, 'WAYBILL_ERASE_AFTER', /not a duration of hours or days/)
})

t.test('the schema is data: every variable has a description, and the defaults are the ones loadConfig uses', async (t) => {
  t.same(NAMES, ['WAYBILL_DATA_DIR', 'WAYBILL_HTTPS_PORT', 'WAYBILL_HTTP_PORT', 'WAYBILL_HOST', 'WAYBILL_TLS_CERT', 'WAYBILL_TLS_KEY',
    'WAYBILL_TRUST_PROXY', 'WAYBILL_STORE', 'EVENTSTORE_CONNECTION_STRING', 'WAYBILL_RATE_LIMIT', 'WAYBILL_RATE_LIMIT_WINDOW_MS',
    'WAYBILL_RATE_LIMIT_PER_ADDRESS', 'WAYBILL_METRICS_PORT', 'WAYBILL_METRICS_HOST', 'WAYBILL_PROJECTOR_PORT', 'WAYBILL_MAX_CONNECTIONS',
    'WAYBILL_MAX_CONNECTIONS_PER_ADDRESS', 'WAYBILL_MAX_PLAIN_CONNECTIONS', 'WAYBILL_FAILED_KEYS_PER_ADDRESS', 'WAYBILL_TLS_MIN_VERSION', 'WAYBILL_TLS_CIPHERS', 'WAYBILL_SANDBOX', 'WAYBILL_AUDIT_KEY_DIR', 'WAYBILL_SUBJECT_KEY_DIR', 'WAYBILL_ERASE_AFTER', 'WAYBILL_AUDIT_HEAD_EVERY_EVENTS',
    'WAYBILL_AUDIT_HEAD_EVERY_MS', 'WAYBILL_WEBHOOK_RETRIES', 'WAYBILL_WEBHOOK_TIMEOUT_MS', 'LOG_LEVEL'])
  for (const name of NAMES) t.type(PROPERTIES[name]!.description, 'string', `${name} is described`)
  const defaults = Object.fromEntries(NAMES.filter((name) => PROPERTIES[name]!.default !== undefined)
    .map((name) => [name, String(PROPERTIES[name]!.default)]))
  t.same(loadConfig(defaults), DEFAULTS, 'setting every default explicitly changes nothing')
  t.same(PROPERTIES.WAYBILL_STORE!.enum, ['sqlite', 'eventstoredb'])
})

t.test('each variable: good values and what they become', async (t) => {
  const cases: [Record<string, string>, Partial<WaybillConfig>][] = [
    [{ WAYBILL_DATA_DIR: '/var/lib/waybill' }, { dataDir: '/var/lib/waybill', subjectKeyDir: '/var/lib/waybill.subject-keys' }],
    [{ WAYBILL_DATA_DIR: 'relative/dir' }, { dataDir: resolve('relative/dir'), subjectKeyDir: `${resolve('relative/dir')}.subject-keys` }],
    [{ WAYBILL_HTTPS_PORT: '443' }, { httpsPort: 443 }],
    [{ WAYBILL_HTTPS_PORT: '0' }, { httpsPort: 0 }],
    [{ WAYBILL_HTTPS_PORT: '65535' }, { httpsPort: 65535 }],
    [{ WAYBILL_HTTP_PORT: '80' }, { httpPort: 80 }],
    [{ WAYBILL_HOST: '0.0.0.0' }, { host: '0.0.0.0' }],
    [{ WAYBILL_HOST: '::' }, { host: '::' }],
    [{ WAYBILL_TLS_CERT: '/etc/tls/cert.pem', WAYBILL_TLS_KEY: 'key.pem' }, { tls: { certPath: '/etc/tls/cert.pem', keyPath: resolve('key.pem') } }],
    [{ WAYBILL_TRUST_PROXY: '10.0.0.1' }, { trustProxy: ['10.0.0.1'] }],
    [{ WAYBILL_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7 ,::1,fd00::/8,::ffff:10.0.0.1' }, { trustProxy: ['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', '::ffff:10.0.0.1'] }],
    [{ WAYBILL_TRUST_PROXY: '0.0.0.0/0,::/0' }, { trustProxy: ['0.0.0.0/0', '::/0'] }],
    [{ WAYBILL_STORE: 'sqlite' }, { store: 'sqlite' }],
    [{ WAYBILL_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' },
      { store: 'eventstoredb', eventstoreConnectionString: 'esdb://localhost:2113?tls=false' }],
    [{ WAYBILL_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: 'esdb+discover://a:2113,b:2113' },
      { store: 'eventstoredb', eventstoreConnectionString: 'esdb+discover://a:2113,b:2113' }],
    [{ WAYBILL_RATE_LIMIT: '1' }, { rateLimit: { max: 1, windowMs: 1000 } }],
    [{ WAYBILL_RATE_LIMIT_WINDOW_MS: '60000' }, { rateLimit: { max: 1000, windowMs: 60000 } }],
    [{ WAYBILL_RATE_LIMIT: String(Number.MAX_SAFE_INTEGER) }, { rateLimit: { max: Number.MAX_SAFE_INTEGER, windowMs: 1000 } }],
    [{ WAYBILL_METRICS_PORT: '9090' }, { metrics: { host: '127.0.0.1', port: 9090 } }],
    [{ WAYBILL_METRICS_PORT: '0' }, { metrics: { host: '127.0.0.1', port: 0 } }],
    [{ WAYBILL_METRICS_HOST: '10.0.0.5' }, { metrics: { host: '10.0.0.5', port: 9464 } }],
    [{ WAYBILL_PROJECTOR_PORT: '9100' }, { projectorPort: 9100 }],
    [{ WAYBILL_RATE_LIMIT_PER_ADDRESS: '20000' }, { addressRateLimit: 20000 }],
    [{ WAYBILL_MAX_CONNECTIONS: '100' }, { maxConnections: 100 }],
    [{ WAYBILL_MAX_CONNECTIONS_PER_ADDRESS: '8' }, { connectionLimits: { perAddress: 8, plainConnections: 64 } }],
    [{ WAYBILL_MAX_PLAIN_CONNECTIONS: '4' }, { connectionLimits: { perAddress: 256, plainConnections: 4 } }],
    [{ WAYBILL_FAILED_KEYS_PER_ADDRESS: '1000' }, { failedKeysPerAddress: 1000 }],
    [{ WAYBILL_TLS_MIN_VERSION: 'TLSv1.3' }, { tlsPolicy: { minVersion: 'TLSv1.3' } }],
    [{ WAYBILL_TLS_CIPHERS: 'TLS_AES_256_GCM_SHA384' }, { tlsPolicy: { minVersion: 'TLSv1.2', ciphers: 'TLS_AES_256_GCM_SHA384' } }],
    [{ WAYBILL_SANDBOX: 'off' }, { sandbox: false }],
    [{ WAYBILL_WEBHOOK_RETRIES: '500ms, 5s,5m,2h,1d' }, { webhooks: { retrySchedule: [500, 5_000, 300_000, 7_200_000, 86_400_000], timeoutMs: 10000 } }],
    [{ WAYBILL_WEBHOOK_RETRIES: '30d' }, { webhooks: { retrySchedule: [2_592_000_000], timeoutMs: 10000 } }],
    [{ WAYBILL_WEBHOOK_TIMEOUT_MS: '2500' }, { webhooks: { retrySchedule: null, timeoutMs: 2500 } }],
    ...(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const)
      .map((level): [Record<string, string>, Partial<WaybillConfig>] => [{ LOG_LEVEL: level }, { logLevel: level }]),
  ]
  for (const [env, expected] of cases) t.same(loadConfig(env), { ...DEFAULTS, ...expected }, JSON.stringify(env))
})

t.test('each variable: a bad value is a ConfigError naming it, saying what was expected and what was given', async (t) => {
  const port = 'expected a whole number from 0 to 65535'
  const count = 'expected a whole number of at least 1'
  const cases: [string, string, string][] = [
    ['WAYBILL_HTTPS_PORT', 'abc', port], ['WAYBILL_HTTPS_PORT', '-1', port], ['WAYBILL_HTTPS_PORT', '65536', port],
    ['WAYBILL_HTTPS_PORT', '1.5', port], ['WAYBILL_HTTP_PORT', '70000', port], ['WAYBILL_HTTP_PORT', '80 81', port],
    ['WAYBILL_METRICS_PORT', 'metrics', port], ['WAYBILL_METRICS_PORT', '99999', port],
    ['WAYBILL_RATE_LIMIT', '0', count], ['WAYBILL_RATE_LIMIT', '-5', count], ['WAYBILL_RATE_LIMIT', 'many', count],
    ['WAYBILL_RATE_LIMIT', '2.5', count], ['WAYBILL_RATE_LIMIT', '9007199254740993', count],
    ['WAYBILL_RATE_LIMIT_WINDOW_MS', '0', count], ['WAYBILL_RATE_LIMIT_WINDOW_MS', '1s', count],
    // Numbers Ajv's coercion alone would take: whole numbers are written in decimal digits.
    ...['1e3', '0x50', '+80', '-0', '1.0', 'Infinity', '-Infinity', '1e999'].flatMap((value): [string, string, string][] =>
      [['WAYBILL_HTTPS_PORT', value, port], ['WAYBILL_METRICS_PORT', value, port], ['WAYBILL_RATE_LIMIT', value, count]]),
    ['WAYBILL_STORE', 'mysql', 'expected one of sqlite, eventstoredb'], ['WAYBILL_STORE', 'SQLITE', 'expected one of sqlite, eventstoredb'],
    ['LOG_LEVEL', 'loud', 'expected one of fatal, error, warn, info, debug, trace, silent'],
    ['WAYBILL_WEBHOOK_TIMEOUT_MS', '0', count],
  ]
  for (const [variable, value, expected] of cases) {
    refuses(t, { [variable]: value }, variable, new RegExp(`^${variable}: ${expected}, got "${value.replace(/[.+]/g, '\\$&')}"$`))
  }
})

t.test('WAYBILL_WEBHOOK_RETRIES: waits above 0 and at most 30 days, each with its unit', async (t) => {
  const cases: Array<[string, string]> = [['5', '5'], ['5s,', ''], ['5s,,5m', ''], ['0s', '0s'], ['31d', '31d'], ['1w', '1w'], ['5 s', '5 s'], ['5s;5m', '5s;5m']]
  for (const [value, wrong] of cases) {
    refuses(t, { WAYBILL_WEBHOOK_RETRIES: value }, 'WAYBILL_WEBHOOK_RETRIES',
      new RegExp(`^WAYBILL_WEBHOOK_RETRIES: expected waits such as 5s,5m,2h \\(each above 0 and at most 30d\\), got "${wrong}"$`))
  }
})

t.test('WAYBILL_TRUST_PROXY: each entry must be an IP address or a CIDR range', async (t) => {
  for (const entry of ['not-an-ip', '10.0.0.256', '10.0.0', '010.0.0.1', '10.0.0.0/33', '10.0.0.0/x', '10.0.0.0/', '::1/129', '10.0.0.1/8/1', 'fe80::1::2', 'localhost']) {
    refuses(t, { WAYBILL_TRUST_PROXY: entry }, 'WAYBILL_TRUST_PROXY', new RegExp(`^WAYBILL_TRUST_PROXY: "${entry.replace(/\./g, '\\.')}" is not an IP address or CIDR range$`))
  }
  refuses(t, { WAYBILL_TRUST_PROXY: '10.0.0.1, bogus' }, 'WAYBILL_TRUST_PROXY', /^WAYBILL_TRUST_PROXY: "bogus" is not/)
})

t.test('rules between variables', async (t) => {
  refuses(t, { WAYBILL_TLS_CERT: 'cert.pem' }, 'WAYBILL_TLS_KEY', /^WAYBILL_TLS_KEY: WAYBILL_TLS_CERT and WAYBILL_TLS_KEY go together: set both or neither$/)
  refuses(t, { WAYBILL_TLS_KEY: 'key.pem' }, 'WAYBILL_TLS_CERT', /^WAYBILL_TLS_CERT: WAYBILL_TLS_CERT and WAYBILL_TLS_KEY go together/)
  refuses(t, { WAYBILL_STORE: 'eventstoredb' }, 'EVENTSTORE_CONNECTION_STRING', /^EVENTSTORE_CONNECTION_STRING: required when WAYBILL_STORE=eventstoredb$/)
  for (const connection of ['kurrentdb://localhost:2113', 'http://localhost:2113', 'esdb://', 'esdb:///path', 'esdb://?tls=false', 'localhost:2113']) {
    refuses(t, { WAYBILL_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: connection }, 'EVENTSTORE_CONNECTION_STRING',
      /^EVENTSTORE_CONNECTION_STRING: expected esdb:\/\/host:port… or esdb\+discover:\/\/host:port…$/)
  }
  t.equal(loadConfig({ EVENTSTORE_CONNECTION_STRING: 'kurrentdb://unused' }).eventstoreConnectionString, 'kurrentdb://unused',
    'the connection string is checked only when the store uses it')
  refuses(t, { WAYBILL_HTTPS_PORT: '8000', WAYBILL_HTTP_PORT: '8000' }, 'WAYBILL_HTTP_PORT', /^WAYBILL_HTTP_PORT: must differ from WAYBILL_HTTPS_PORT \(both 8000\)$/)
  refuses(t, { WAYBILL_HTTPS_PORT: '8080' }, 'WAYBILL_HTTP_PORT', /^WAYBILL_HTTP_PORT: must differ from WAYBILL_HTTPS_PORT \(both 8080\)$/)
  refuses(t, { WAYBILL_METRICS_PORT: '8443' }, 'WAYBILL_METRICS_PORT', /^WAYBILL_METRICS_PORT: must differ from WAYBILL_HTTPS_PORT and WAYBILL_HTTP_PORT \(8443\)$/)
  refuses(t, { WAYBILL_METRICS_PORT: '8080' }, 'WAYBILL_METRICS_PORT', /^WAYBILL_METRICS_PORT: must differ/)
  for (const keyDir of ['/srv/data', '/srv/data/audit-key', '/srv/data/../data/keys']) {
    refuses(t, { WAYBILL_DATA_DIR: '/srv/data', WAYBILL_AUDIT_KEY_DIR: keyDir }, 'WAYBILL_AUDIT_KEY_DIR',
      /^WAYBILL_AUDIT_KEY_DIR: must be outside WAYBILL_DATA_DIR \(\/srv\/data\)/)
  }
  t.equal(loadConfig({ WAYBILL_DATA_DIR: '/srv/data', WAYBILL_AUDIT_KEY_DIR: '/srv/data-audit-key' }).audit.keyDir, '/srv/data-audit-key',
    'a sibling whose name starts like the data dir is outside it')
  t.same(loadConfig({ WAYBILL_HTTPS_PORT: '0', WAYBILL_HTTP_PORT: '0', WAYBILL_METRICS_PORT: '0' }),
    { ...DEFAULTS, httpsPort: 0, httpPort: 0, metrics: { host: '127.0.0.1', port: 0 } }, 'port 0 (any free port) may repeat')
})

t.test('a schema failure is reported before a rule between variables, and the first variable in schema order wins', async (t) => {
  refuses(t, { WAYBILL_TLS_CERT: 'cert.pem', WAYBILL_HTTPS_PORT: 'x' }, 'WAYBILL_HTTPS_PORT', /^WAYBILL_HTTPS_PORT: /)
  refuses(t, { LOG_LEVEL: 'loud', WAYBILL_STORE: 'mysql', WAYBILL_HTTP_PORT: 'x' }, 'WAYBILL_HTTP_PORT', /^WAYBILL_HTTP_PORT: /)
})

t.test('values are trimmed, an empty value is an unset one, unknown variables are ignored', async (t) => {
  t.same(loadConfig({ WAYBILL_HTTPS_PORT: ' 9443 ', LOG_LEVEL: '\tdebug\n' }), { ...DEFAULTS, httpsPort: 9443, logLevel: 'debug' })
  t.same(loadConfig(Object.fromEntries(NAMES.map((name) => [name, '']))), DEFAULTS, 'every variable empty: the defaults')
  t.same(loadConfig({ WAYBILL_METRICS_PORT: '   ', WAYBILL_TRUST_PROXY: ' , ' }), DEFAULTS, 'blank is unset, not port 0')
  t.same(loadConfig({ PATH: '/usr/bin', WAYBILL_HTTPS_PROT: 'oops', WAYBILL_PUBLIC_HOST: 'example.com', waybill_store: 'mysql' }), DEFAULTS)
})

t.test('ConfigError is an Error that carries the variable', async (t) => {
  const error = t.throws(() => loadConfig({ WAYBILL_STORE: 'mysql' })) as unknown
  t.ok(error instanceof ConfigError && error instanceof Error)
  t.equal((error as ConfigError).variable, 'WAYBILL_STORE')
  t.equal((error as ConfigError).name, 'ConfigError')
})

t.test('loadConfig(env) reads exactly env: not process.env, not a .env file; loadConfig(process.env) reads process.env only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'waybill-config-'))
  const cwd = process.cwd()
  const saved = process.env.WAYBILL_HTTPS_PORT
  t.teardown(() => {
    process.chdir(cwd)
    if (saved === undefined) delete process.env.WAYBILL_HTTPS_PORT
    else process.env.WAYBILL_HTTPS_PORT = saved
    rmSync(dir, { recursive: true, force: true })
  })
  writeFileSync(join(dir, '.env'), 'WAYBILL_HTTP_PORT=1111\nLOG_LEVEL=loud\n')
  process.chdir(dir)
  process.env.WAYBILL_HTTPS_PORT = '2222'
  const env = { WAYBILL_HOST: '0.0.0.0' }
  const config = loadConfig(env)
  t.equal(config.httpsPort, 8443, 'process.env is not read when env is given')
  t.equal(config.httpPort, 8080, 'the .env file is not read')
  t.same(env, { WAYBILL_HOST: '0.0.0.0' }, 'the given env is not changed (no defaults written into it)')
  const fromProcess = loadConfig(process.env)
  t.equal(fromProcess.httpsPort, 2222, 'process.env when given it, as main.ts does')
  t.equal(fromProcess.httpPort, 8080, 'still no .env file')
  t.equal(process.env.WAYBILL_HTTP_PORT, undefined, 'nothing is written into process.env')
})

// The table of docs/operations.md#configuration, rendered from the schema; on a mismatch the diff
// shows the table to paste.
function configurationTable(): string {
  const accepts = (p: Property): string => {
    if (p.enum !== undefined) return p.enum.map((value) => `\`${value}\``).join(', ')
    if (p.type === 'integer') return p.maximum === Number.MAX_SAFE_INTEGER ? `whole number ≥ ${p.minimum}` : `${p.minimum}–${p.maximum}`
    return 'text'
  }
  return ['| variable | default | accepts | meaning |', '|---|---|---|---|',
    ...NAMES.map((name) => {
      const p = PROPERTIES[name]!
      return `| \`${name}\` | ${p.default === undefined ? '(none)' : `\`${String(p.default)}\``} | ${accepts(p)} | ${p.description} |`
    })].join('\n')
}

t.test('the "Configuration" table of docs/operations.md is the schema', async (t) => {
  const operations = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'operations.md'), 'utf8')
  const start = operations.indexOf('\n## Configuration\n')
  t.not(start, -1, 'docs/operations.md has a "Configuration" section')
  const section = operations.slice(start + 1, operations.indexOf('\n## ', start + 1))
  t.equal(section.split('\n').filter((line) => line.startsWith('|')).join('\n'), configurationTable())
})

// The static type TypeBox reads from the schema (XStatic): `pnpm typecheck` fails if a variable's
// type drifts, or if it ever degrades to any (which would let every use of it through).
type IsAny<T> = 0 extends 1 & T ? true : false
type Same<A, B> = IsAny<A> extends true ? false : [A] extends [B] ? ([B] extends [A] ? true : false) : false
t.test('the configuration type is read from the schema: enums as unions, integers as numbers, optional without a default', async (t) => {
  const checks: [
    Same<WaybillEnvironment['WAYBILL_STORE'], 'sqlite' | 'eventstoredb'>,
    Same<WaybillEnvironment['WAYBILL_HTTPS_PORT'], number>,
    Same<WaybillEnvironment['WAYBILL_DATA_DIR'], string>,
    Same<WaybillEnvironment['WAYBILL_TLS_CERT'], string | undefined>,
    Same<keyof WaybillEnvironment, keyof typeof CONFIG_SCHEMA.properties>,
  ] = [true, true, true, true, true]
  t.same(checks, [true, true, true, true, true])
})
