import t from 'tap'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Sqlite from 'better-sqlite3'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { hashEvent } from '@waybill/event-store'
import { runWaybill, startServe, type Serving } from '@waybill/cli/testing'
import { pngDataUrl, post } from './waybill.js'

// One real `waybill serve` (in this process; HTTPS, its self-signed certificate), one Chromium, a few pages: sign
// in, find an order, read its history, images and verdict; then an attacker rewrites an event in
// the store and the console turns red. With WAYBILL_SCREENSHOTS=1 it writes the README's
// screenshots to docs/screenshots/ (a full-page PNG costs Chromium CPU each run, and a run would
// otherwise rewrite tracked files).
const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))
const TAKE_SCREENSHOTS = process.env['WAYBILL_SCREENSHOTS'] === '1'

/**
 * Runs `navigate` and waits for the section `id` (#results, #deliveries) of the page it brings to
 * have loaded: the section shown before is marked first, since it is also "not busy" until the
 * router replaces it, and a wait on the URL alone can end before that.
 */
async function loaded(page: Page, id: string, navigate: () => Promise<unknown>): Promise<void> {
  await page.evaluate((section) => document.getElementById(section)?.setAttribute('data-left', ''), id)
  await navigate()
  await page.locator(`#${id}:not([data-left])[aria-busy="false"]`).waitFor()
}

/** Writes the page to docs/screenshots/`name` when WAYBILL_SCREENSHOTS=1. */
async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  if (TAKE_SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, name), fullPage })
}
const require = createRequire(import.meta.url)
const AXE = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8')
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

const dir = await mkdtemp(join(tmpdir(), 'waybill-console-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
// The signing key outside the data dir, as in production; a head after every order event, so
// the test need not wait for the time-based one.
const env = {
  WAYBILL_DATA_DIR: join(dir, 'data'), WAYBILL_AUDIT_KEY_DIR: join(dir, 'audit-key'), WAYBILL_AUDIT_HEAD_EVERY_EVENTS: '1',
  // Webhook retries in milliseconds, for the Webhooks page's failed attempts.
  WAYBILL_WEBHOOK_RETRIES: '100ms,100ms,100ms,100ms,100ms',
}
let served: Serving
let browser: Browser
let context: BrowserContext
let page: Page
// Anything the CSP blocks, or any script error, shows up here and fails the last test.
const problems: string[] = []

async function create(...args: string[]): Promise<string> {
  const made = await runWaybill(['keys', 'create', ...args], { env })
  if (made.code !== 0) throw new Error(made.stderr)
  return made.stdout.trim()
}
const courier = await create('--account', 'acme', '--scopes', 'orders:add,orders:update,orders:complete,orders:cancel,orders:read', '--label', 'courier app')
const auditor = await create('--account', '*', '--scopes', 'orders:audit', '--label', 'external audit')
const writer = await create('--account', 'acme', '--scopes', 'orders:add')
const revoked = await create('--account', 'acme', '--scopes', 'orders:read')

// A webhook receiver: at /waybill it refuses its first two requests (503), then takes everything;
// at /gone it answers 410, which disables the endpoint that posts there.
let received = 0
const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    if (request.url === '/gone') response.writeHead(410).end('no such hook')
    else response.writeHead(received++ < 2 ? 503 : 204).end(received <= 2 ? 'warming up' : '')
  })
})
receiver.listen(0, '127.0.0.1')
await once(receiver, 'listening')
t.teardown(() => { receiver.closeAllConnections(); receiver.close() })
const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

t.before(async () => {
  if ((await runWaybill(['keys', 'revoke', revoked], { env })).code !== 0) throw new Error('could not revoke')
  for (const args of [[`${hooks}/waybill`], [`${hooks}/gone`, '--events', 'ORDER_CANCELED']]) {
    const added = await runWaybill(['webhooks', 'add', ...args], { env })
    if (added.code !== 0) throw new Error(added.stderr)
  }
  served = await startServe(env)
  const ca = await readFile(join(env.WAYBILL_DATA_DIR, 'tls', 'cert.pem'), 'utf8')
  // Orders: D-100 goes all the way to completion with a proof of delivery and a signature.
  const send = async (event: string, date: string, payload: Record<string, unknown>): Promise<void> => {
    const status = await post(served.httpsUrl, ca, courier, { event, event_date: date, event_payload: payload })
    if (status !== 201 && status !== 202) throw new Error(`${event} ${String(payload['order_id'])}: ${status}`)
  }
  const add = (id: string, customer: string, location: string, date: string) =>
    send('ORDER_ADD', date, { order_id: id, customer, location, status: 'pending', address: '1 Main St', delivery_date: '2026-11-24T10:00:00Z' })
  await add('D-100', 'Jane Doe', 'Lyon', '2026-11-23T08:00:00Z')
  await add('D-101', 'Bo Li', 'Lyon', '2026-11-23T08:05:00Z')
  await add('D-102', 'Ann Roe', 'Porto', '2026-11-23T08:10:00Z')
  await send('ORDER_UPDATE', '2026-11-23T09:00:00Z', { order_id: 'D-100', status: 'in_progress', address: '2 Quai Rambaud', delivery_date: '2026-11-23T15:00:00Z' })
  await send('ORDER_COMPLETE', '2026-11-23T14:58:00Z', {
    order_id: 'D-100', address: '2 Quai Rambaud', delivery_date: '2026-11-23T14:58:00Z', recipient: 'Jane Doe',
    pod: pngDataUrl(160, 96, 0), signature: pngDataUrl(120, 48, 1),
  })
  await send('ORDER_CANCELED', '2026-11-23T09:30:00Z', { order_id: 'D-101', reason: 'customer moved' })

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
  t.teardown(() => browser.close())
  await openPage()
  await mkdir(SCREENSHOTS, { recursive: true })
})

/** A fresh browser context (the server's certificate is self-signed) and one page in it. */
async function openPage(): Promise<void> {
  context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1200, height: 900 }, acceptDownloads: true })
  page = await context.newPage()
  page.on('console', (message) => { if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(message.text()) })
  page.on('pageerror', (error) => problems.push(error.message))
}
t.teardown(async () => { await served.stop() })

/** axe-core run in the page; the serious and critical violations (none expected). */
async function axeViolations(on: Page): Promise<string[]> {
  // Evaluated through DevTools, which the page's CSP does not govern (an inline <script> would be refused).
  await on.evaluate(AXE)
  const found = await on.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }).axe
    return (await axe.run()).violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length }))
  })
  return found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id} (${violation.impact ?? ''}, ${violation.nodes} nodes)`)
}

async function signIn(key: string, pinnedKeyId?: string): Promise<void> {
  await page.goto(`${served.httpsUrl}/console/`)
  await page.getByLabel('API key').fill(key)
  if (pinnedKeyId !== undefined) await page.getByLabel('Audit log key id (optional)').fill(pinnedKeyId)
  await page.keyboard.press('Enter')
}

async function verdictOf(on: Page): Promise<string> {
  const box = on.locator('#verdict:not(.verdict-checking)')
  await box.waitFor()
  return await box.getAttribute('data-verdict') ?? ''
}

/**
 * The verdict once the latest signed head covers every event of the order: the projector signs
 * a moment after the events land, so the page is reloaded (a bounded number of times) while the
 * verdict is one of the waiting states (no head yet, none or only some events covered).
 */
async function settledVerdict(on: Page): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const verdict = await verdictOf(on)
    if (!['unsigned', 'pending', 'partial'].includes(verdict)) return verdict
    await new Promise((resolve) => setTimeout(resolve, 200))
    await on.reload()
  }
  return verdictOf(on)
}

t.test('the console is served with its strict CSP', async (t) => {
  const response = await page.goto(`${served.httpsUrl}/console/`)
  const csp = response?.headers()['content-security-policy'] ?? ''
  t.match(csp, /default-src 'self'/)
  t.match(csp, /script-src 'self'(;|$)/)
  t.match(csp, /frame-ancestors 'none'/)
  t.notMatch(csp, /unsafe/)
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in to the Waybill console')
  t.same(await axeViolations(page), [], 'no serious or critical axe violation on the sign-in page')
  await page.getByLabel('API key').fill('wb_live_not-a-real-key')
  await screenshot(page, 'console-sign-in.png')
})

t.test('a wrong key, a revoked key and a key that cannot read each get a clear page', async (t) => {
  await signIn('wb_live_000000000000wrongwrongwrongwrongwrongwrongwrongwr')
  await page.getByRole('heading', { name: 'This key was refused' }).waitFor()
  t.match(await page.locator('.refused').textContent(), /invalid_api_key/)
  t.same(await axeViolations(page), [], 'refused page')
  await signIn(revoked)
  await page.getByRole('heading', { name: 'This key was refused' }).waitFor()
  t.match(await page.locator('.refused').textContent(), /revoked/)
  await signIn(writer)
  await page.getByRole('heading', { name: 'This key cannot read orders' }).waitFor()
  t.match(await page.locator('.refused').textContent(), /api_key_forbidden/)
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused key is not kept')
  await page.getByRole('button', { name: 'Try another key' }).click()
  await page.getByLabel('API key').waitFor()
})

t.test('an auditor signs in, filters the orders, pages through them, and opens one', async (t) => {
  await signIn(auditor)
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
  await page.locator('#results[aria-busy="false"]').waitFor()
  t.equal(await page.locator('table.orders tbody tr').count(), 3)
  t.notMatch(page.url(), /wb_/, 'the key is never in the URL')
  t.match(await page.evaluate(() => Object.values(sessionStorage).join()), /wb_live_/, 'the key is held in sessionStorage')

  // Keyboard only: the status filter, then Search.
  await page.getByLabel('Status').selectOption('completed')
  await page.getByLabel('Location').fill('Lyon')
  await loaded(page, 'results', async () => {
    await page.getByLabel('Location').press('Enter')
    await page.waitForURL(/status=completed/)
  })
  t.equal(await page.locator('table.orders tbody tr').count(), 1)
  t.equal(await page.locator('table.orders tbody th a').textContent(), 'D-100')
  t.same(await axeViolations(page), [], 'order list')

  await loaded(page, 'results', () => page.goto(`${served.httpsUrl}/console/#/orders`))
  await screenshot(page, 'console-orders.png', true)

  // Cursor paging, two orders a page: the API's own cursor, kept in the fragment.
  await page.goto(`${served.httpsUrl}/console/#/orders?limit=2`)
  await page.locator('#account').fill('acme')
  await loaded(page, 'results', () => page.getByRole('button', { name: 'Search' }).click())
  const seen = [await page.locator('table.orders tbody th').allTextContents()]
  while (await page.getByRole('link', { name: 'Next page' }).count() > 0) {
    await loaded(page, 'results', () => page.getByRole('link', { name: 'Next page' }).click())
    seen.push(await page.locator('table.orders tbody th').allTextContents())
    if (seen.length > 5) break
  }
  t.same(seen.flat(), ['D-100', 'D-101', 'D-102'], 'every order once, in order')

  // Go to an order by id (an auditor names its account).
  await page.getByLabel('Order id').fill('D-100')
  await page.locator('#go-account').fill('acme')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByRole('heading', { name: 'Order D-100', level: 1 }).waitFor()
  t.match(page.url(), /#\/order\?id=D-100&account=acme/)
})

t.test('an auditor reads the webhook endpoints and the delivery log, failed attempts and all', async (t) => {
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
  // The six order events reach the first receiver within a second or so of its first refusals;
  // the second endpoint is disabled by its one 410.
  const endpoints = page.locator('table.endpoints tbody tr')
  for (let attempt = 0; attempt < 50; attempt++) {
    await page.locator('#deliveries[aria-busy="false"]').waitFor()
    const rows = await endpoints.allTextContents()
    const delivered = await page.locator('table.deliveries tbody .outcome-delivered').count()
    if (rows.length === 2 && /enabled.*every event0–20/.test(rows[0] ?? '') && /disabled/.test(rows[1] ?? '') && delivered === 6) break
    await new Promise((resolve) => setTimeout(resolve, 200))
    await page.reload()
  }
  t.equal(await endpoints.count(), 2)
  t.match(await endpoints.nth(0).textContent(), /^ep_[0-9a-f]{16}enabledhttp:\/\/127\.0\.0\.1:\d+\/waybillevery accountevery event0–20\d\d-/, 'enabled, nothing waiting, a last success')
  t.match(await endpoints.nth(1).textContent(),
    /^ep_[0-9a-f]{16}disabledthe receiver answered 410 Gone \(msg_\S+\) at 20\S+http:\/\/127\.0\.0\.1:\d+\/goneevery accountORDER_CANCELED120\S+ \S+Z–$/,
    'disabled by the 410, why, and the refused message still waiting')
  const log = page.locator('table.deliveries tbody tr')
  t.ok(await page.locator('table.deliveries tbody .outcome-failed').count() >= 2, 'the refused attempts are in the log')
  t.match(await log.filter({ has: page.locator('.outcome-failed') }).first().textContent(), /^20\S+ \S+Zep_\w+D-10\dacmeOrderAdded \(revision 0\)failed503\d+ msmsg_\S+HTTP 503: warming up$/)
  t.match(await log.filter({ has: page.locator('.outcome-gone') }).textContent(), /D-101acmeOrderCanceled \(revision 1\)gone410\d+ msmsg_\S+HTTP 410: no such hook$/)
  t.equal(await page.locator('table.deliveries tbody .outcome-delivered').count(), 6, 'every event delivered to the first endpoint once')
  const everyAttempt = await log.locator('td.id').allTextContents()
  t.same(await axeViolations(page), [], 'webhooks page')
  await screenshot(page, 'console-webhooks.png', true)

  await page.getByLabel('Failed attempts only').check()
  await loaded(page, 'deliveries', () => page.getByRole('button', { name: 'Show' }).click())
  t.match(page.url(), /failed=true/)
  t.ok(await log.count() >= 3, 'the refused and the gone attempts')
  t.equal(await page.locator('table.deliveries tbody .outcome-delivered').count(), 0, 'only attempts that did not deliver')
  await page.getByLabel('Endpoint', { exact: true }).selectOption({ index: 2 })
  await loaded(page, 'deliveries', () => page.getByRole('button', { name: 'Show' }).click())
  t.match(page.url(), /endpoint=ep_\w+&failed=true/)
  t.equal(await log.count(), 1, "the second endpoint's one attempt")
  await log.locator('a').first().click()
  await page.getByRole('heading', { name: 'Order D-101', level: 1 }).waitFor()
  t.match(page.url(), /#\/order\?id=D-101&account=acme$/, "an attempt's order opens its page")

  // A reader who moves on before the order's answers came keeps the page they moved to (the
  // order's state is held back half a second).
  const STATE = '**/v1/orders/D-101?*'
  let stateAsked!: () => void
  const asked = new Promise<void>((resolve) => { stateAsked = resolve })
  await page.route(STATE, async (route) => {
    stateAsked()
    await new Promise((resolve) => setTimeout(resolve, 500))
    await route.continue()
  })
  // (`again`: a fragment other than the one shown, so that the router loads the page again.)
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-101&account=acme&again=1`)
  await asked
  const late = page.waitForResponse(STATE)
  await loaded(page, 'deliveries', () => page.goto(`${served.httpsUrl}/console/#/webhooks`))
  await late
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.same(await page.locator('h1').allTextContents(), ['Webhooks'], 'the late answer does not replace the page moved to')
  await page.unroute(STATE)

  // The log's own cursor, three attempts a page: every attempt once, newest first.
  await loaded(page, 'deliveries', () => page.goto(`${served.httpsUrl}/console/#/webhooks?limit=3`))
  const seen = [await log.locator('td.id').allTextContents()]
  while (await page.getByRole('link', { name: 'Older attempts' }).count() > 0 && seen.length < 10) {
    await loaded(page, 'deliveries', () => page.getByRole('link', { name: 'Older attempts' }).click())
    seen.push(await log.locator('td.id').allTextContents())
  }
  t.ok(seen.length >= 3 && seen.slice(0, -1).every((rows) => rows.length === 3), `pages of three (${seen.map((rows) => rows.length).join(', ')})`)
  t.same(seen.flat(), everyAttempt, 'every attempt once, in the order of the one-page log')
  t.equal(await page.getByRole('link', { name: 'Newest attempts' }).count(), 1, 'and a way back to the newest')
  // Back where the next test expects the auditor.
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-100&account=acme`)
  await page.getByRole('heading', { name: 'Order D-100', level: 1 }).waitFor()
})

/** Waits for the order page's images to be decoded; their natural widths. */
async function imageWidths(on: Page): Promise<number[]> {
  await on.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('figure img')].every((img) => img.src !== '' && img.complete))
  return on.locator('figure img').evaluateAll((images) => (images as HTMLImageElement[]).map((img) => img.naturalWidth))
}

t.test('the order page shows the timeline, the state after each event, the images and a green verdict', async (t) => {
  const timeline = page.locator('ol.timeline > li')
  await timeline.first().waitFor()
  t.equal(await timeline.count(), 3)
  t.match(await timeline.nth(0).locator('h3').textContent(), /Revision 0: OrderAdded/)
  t.match(await timeline.nth(1).locator('h3').textContent(), /Revision 1: OrderUpdated/)
  t.match(await timeline.nth(2).locator('h3').textContent(), /Revision 2: OrderCompleted/)
  t.match(await timeline.nth(1).locator('table.changes').textContent(), /address1 Main St2 Quai Rambaud/, 'what changed, before and after')
  t.match(await timeline.nth(2).locator('dl.meta').textContent(), /Received2026-\d\d-\d\dT[\d:.]+Z \(/, 'received time against the event date')
  t.same(await imageWidths(page), [160, 120], 'the pod and the signature render from blob URLs')
  t.match(await page.locator('figure img').first().getAttribute('src'), /^blob:/)

  t.equal(await settledVerdict(page), 'verified')
  t.match(await page.locator('#verdict').textContent(), /Verified in this browser: all 3 event\(s\) of this order are in the signed log as shown here/)
  t.match(await page.locator('#verdict .head').textContent(), /tree size \d+, signed 20\d\d-/)
  t.match(await timeline.nth(2).locator('.state-after').textContent(), /statuscompleted/, 'the state after the completion')
  t.match(await timeline.nth(2).locator('dl.meta').textContent(), /Sent with key[A-Za-z0-9]{12} \(server's record, not signed\)Request/, 'who sent it, marked as not in the leaf')
  t.same(await axeViolations(page), [], 'order page')
  await screenshot(page, 'console-order-verified.png', true)

  // Exports are made in the page.
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()])
  const exported = JSON.parse(await readFile((await json.path()), 'utf8')) as { order_id: string; events: unknown[]; verification: string }
  t.equal(exported.order_id, 'D-100')
  t.equal(exported.events.length, 3)
  t.equal(exported.verification, 'verified')
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
  const lines = (await readFile(await csv.path(), 'utf8')).trimEnd().split('\r\n')
  t.equal(lines.length, 5, 'the server\'s CSV: a header, one row per event, the chain verdict')
  t.match(lines[0], /^revision,event_id,stream,type,event_date,received_at,key_id/)
  t.match(lines[3], /^2,[0-9a-f-]{36},order-[a-z0-9_]+-D-100,OrderCompleted,/)
  t.equal(lines[4], 'chain: ok')
  // The print stylesheet hides the controls.
  await page.emulateMedia({ media: 'print' })
  t.equal(await page.locator('.actions').isVisible(), false)
  await page.emulateMedia({ media: 'screen' })
})

t.test('an image the server will not serve (its file was changed) turns the verdict red', async (t) => {
  // The signature's file in the blob store, overwritten: the server answers 500 for it, and the
  // console cannot check what the event recorded.
  // Its blob is the image sealed with the order's key, named by the hash of the sealed bytes: as the event recorded it.
  const db = new Sqlite(join(env.WAYBILL_DATA_DIR, 'events.sqlite'), { readonly: true })
  const completion = db.prepare("SELECT data FROM events WHERE stream = 'order-acme-D-100' AND type = 'OrderCompleted'").get() as { data: string }
  db.close()
  const sha = (JSON.parse(completion.data) as { signature: { blob: string } }).signature.blob
  const file = join(env.WAYBILL_DATA_DIR, 'blobs', sha.slice(0, 2), sha.slice(2))
  const original = await readFile(file)
  await writeFile(file, 'not a png at all')
  t.teardown(() => writeFile(file, original))
  // A fresh context: the images were served cacheable, and this browser must ask the server again.
  await context.close()
  await openPage()
  await signIn(auditor)
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-100&account=acme`)
  t.equal(await settledVerdict(page), 'failed')
  t.match(await page.locator('#verdict .outcome').textContent(), /revision 2 fails: the signature that revision 2 recorded could not be loaded/)
  t.match(await page.locator('p.error').textContent(), /Signature could not be loaded/)
  t.equal(await imageWidths(page).then((widths) => widths.length), 1, 'the proof of delivery is still shown, checked')
  await writeFile(file, original)
  await page.reload()
  t.equal(await settledVerdict(page), 'verified', 'green again once the file is what the event recorded')
})

t.test('an erased order is still verified, its personal fields marked erased', async (t) => {
  const erased = await runWaybill(['erase', '--account', 'acme', '--order', 'D-102', '--reason', 'ticket 7', '--requested-by', 'dpo'], { env })
  t.equal(erased.code, 0, erased.stderr)
  t.match(erased.stdout, /erased order D-102/)
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-102&account=acme`)
  t.equal(await settledVerdict(page), 'verified', 'the erasure changed nothing a leaf commits to')
  t.match(await page.locator('.erased-note').textContent(), /personal data was erased at 20\d\d-/)
  t.match(await page.locator('#event-0 .fields').textContent(), /personal data erased/)
  t.ok(await page.locator('#event-0 .fields dd.erased').count() >= 3, 'customer, location and address marked erased')
  t.notMatch(await page.locator('main').textContent(), /Ann Roe|Porto/, 'no erased value on the page')
  t.match(await page.locator('ol.timeline > li').last().locator('h3').textContent(), /PersonalDataErased/)
  t.same(await axeViolations(page), [], 'erased order page')
  await screenshot(page, 'console-order-erased.png', true)
})

t.test('an event rewritten in the store as an attacker would (hash chain and all) turns the console red', async (t) => {
  // The browser's idle keep-alive connections go first, so the server stops at once.
  await context.close()
  t.equal(await served.stop(), 0)
  const db = new Sqlite(join(env.WAYBILL_DATA_DIR, 'events.sqlite'))
  const row = db.prepare("SELECT stream, revision, event_id, type, data, metadata FROM events WHERE stream = 'order-acme-D-100' AND revision = 2").get() as
    { stream: string; revision: number; event_id: string; type: string; data: string; metadata: string }
  const data = { ...JSON.parse(row.data) as Record<string, unknown>, recipient: 'John Roe' }
  const metadata = JSON.parse(row.metadata) as Record<string, unknown>
  const hash = hashEvent({ streamName: row.stream, revision: row.revision, id: row.event_id, type: row.type, data, metadata })
  t.equal(db.prepare('UPDATE events SET data = ?, hash = ? WHERE stream = ? AND revision = ?').run(JSON.stringify(data), hash, row.stream, row.revision).changes, 1)
  db.close()
  served = await startServe(env)

  // A new port is a new origin, with its own sessionStorage: sign in again. A key id pinned
  // wrongly fails at the head; the right one (kept by the auditor from the CLI) lets the
  // verification reach the rewritten event.
  await openPage()
  await signIn(auditor, '0123456789abcdef')
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-100&account=acme`)
  t.equal(await settledVerdict(page), 'failed')
  t.match(await page.locator('#verdict .outcome').textContent(), /do not include the pinned 0123456789abcdef/)
  await page.getByRole('button', { name: 'Sign out' }).click()
  const publicKey = JSON.parse((await runWaybill(['audit', 'public-key'], { env })).stdout) as { key_id: string }
  await signIn(auditor, publicKey.key_id)
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
  await page.goto(`${served.httpsUrl}/console/#/order?id=D-100&account=acme`)
  t.equal(await settledVerdict(page), 'failed')
  t.match(await page.locator('#verdict .outcome').textContent(), /revision 2 fails: the event differs from leaf \d+/)
  t.equal(await page.locator('#event-2.failed').count(), 1, 'the failing event is marked in the timeline')
  t.match(await page.locator('#event-2').textContent(), /John Roe/)
  await screenshot(page, 'console-order-failed.png', true)
  t.same(problems, [], 'no script error and nothing blocked by the CSP')
})
