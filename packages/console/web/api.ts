import { createWaybillClient, type components, type operations } from '@waybill/client'

/**
 * The console's requests, through the client generated from the API's OpenAPI document
 * (`@waybill/client`), and the answers' types as that document writes them: a route or schema
 * that changes on the server fails this package's compile, not an auditor's session.
 */

type Schemas = components['schemas']
/** The JSON body of an operation's 200 answer. */
type Answer<Operation extends keyof operations> =
  operations[Operation]['responses'] extends { 200: { content: { 'application/json': infer Body } } } ? Body : never

export type Order = Schemas['Order']
export type OrderList = Schemas['OrderList']
export type History = Schemas['History']
export type HistoryEvent = Schemas['HistoryEntry']
export type OrderProof = Answer<'getOrderProof'>
export type ProofEntry = OrderProof['entries'][number]
/** A signed tree head (STH). */
export type SignedHead = NonNullable<OrderProof['head']>
/** The log's key set (docs/audit.md#key-lifecycle): each head is checked against the key it names. */
export type PublicKeys = Answer<'getAuditPublicKeys'>
export type LogKey = PublicKeys['keys'][number]
export type OrderStatus = Order['status']
/** The list's filters and paging, as the document names them. */
export type OrderFilters = NonNullable<operations['listOrders']['parameters']['query']>
export type WebhookEndpoint = Answer<'listWebhookEndpoints'>['endpoints'][number]
export type DeliveryPage = Answer<'listWebhookDeliveries'>
export type DeliveryAttempt = DeliveryPage['deliveries'][number]
/** The delivery log's filters and paging. */
export type DeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>

/**
 * An RFC 9457 problem body from the API, the members the console shows; when the answer is not
 * JSON, what stands in for one (code `http_<status>`).
 */
export type Problem = Pick<Schemas['Problem'], 'status' | 'title' | 'detail'> & { readonly code: Schemas['Problem']['code'] | `http_${number}` }

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail)
  }
}

function problemOf(response: Response, body: unknown): Problem {
  const fallback = { status: response.status, code: `http_${response.status}` as const, title: response.statusText, detail: response.statusText }
  return typeof body === 'object' && body !== null ? { ...fallback, ...body as Partial<Problem> } : fallback
}

export interface ApiOptions {
  /** The API's origin: the page's own (`location.origin`); the console is served by the server it reads. */
  readonly baseUrl: string
  /**
   * What to do when the API answers 401 (the key was revoked, rotated or expired since sign-in).
   * Sign-in leaves it out: there the refusal is the answer it shows.
   */
  readonly onRefused?: (problem: Problem) => void
  /** The fetch to send requests with; the browser's unless a test gives its own. */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** What openapi-fetch answers: the parsed body on success, the parsed error body otherwise. */
interface Result<T> {
  readonly data?: T
  readonly error?: unknown
  readonly response: Response
}

/** How many times the proofs are asked again when a head was signed between two of their pages. */
const PROOF_ATTEMPTS = 3

/** A client for one key; the key goes in the Service-Api-Key header of each request and nowhere else. */
export class Api {
  private readonly client: ReturnType<typeof createWaybillClient>
  private readonly onRefused: ((problem: Problem) => void) | undefined

  constructor(key: string, options: ApiOptions) {
    // no-store: an answer read with one key must not be served from the cache to the next.
    this.client = createWaybillClient({ baseUrl: options.baseUrl, apiKey: key, cache: 'no-store', fetch: options.fetch })
    this.onRefused = options.onRefused
  }

  private async answer<T>(request: Promise<Result<T>>): Promise<T> {
    const { data, error, response } = await request
    if (response.ok && data !== undefined) return data
    const problem = problemOf(response, error)
    if (response.status === 401 && this.onRefused !== undefined) {
      this.onRefused(problem)
      // The handler has replaced the page with the sign-in page: the page that asked must not go
      // on and draw its error over it, so its request never settles.
      return new Promise<never>(() => undefined)
    }
    throw new ApiError(problem)
  }

  ping(): Promise<Answer<'ping'>> {
    return this.answer(this.client.GET('/ping'))
  }

  listOrders(filters: OrderFilters, account: string | undefined): Promise<OrderList> {
    return this.answer(this.client.GET('/v1/orders', { params: { query: { ...filters, account } } }))
  }

  order(id: string, account: string | undefined): Promise<Order> {
    return this.answer(this.client.GET('/v1/orders/{order_id}', { params: { path: { order_id: id }, query: { account } } }))
  }

  /** The order's whole history: every page of it, in order. */
  async history(id: string, account: string | undefined): Promise<History> {
    const first = await this.historyPage(id, account, undefined)
    const events = [...first.events]
    // Each page's chain verdict is about its events and their link to the page before: the
    // whole chain holds when every page's does, else the first break is the verdict.
    let chain = first.chain
    let page = first
    while (typeof page.next_cursor === 'string') {
      page = await this.historyPage(id, account, Number(page.next_cursor))
      events.push(...page.events)
      if (chain.ok) chain = page.chain
    }
    return { ...page, events, chain, next_cursor: null }
  }

  private historyPage(id: string, account: string | undefined, after: number | undefined): Promise<History> {
    return this.answer(this.client.GET('/v1/orders/{order_id}/events', { params: { path: { order_id: id }, query: { account, after } } }))
  }

  /**
   * Every event's proof against one head: every page, asked again (a few times) when a head was
   * signed between two pages, so that all the proofs are against the same head.
   */
  async proof(id: string, account: string | undefined): Promise<OrderProof> {
    for (let attempt = 1; ; attempt += 1) {
      const pages = [await this.proofPage(id, account, undefined)]
      for (let last = pages[0]; typeof last?.next_cursor === 'string'; last = pages.at(-1)) pages.push(await this.proofPage(id, account, Number(last.next_cursor)))
      const sizes = new Set(pages.map((page) => page.head?.tree_size ?? null))
      if (sizes.size === 1 || attempt === PROOF_ATTEMPTS) {
        const [first] = pages as [OrderProof, ...OrderProof[]]
        return { ...first, entries: pages.flatMap((page) => page.entries), next_cursor: null }
      }
    }
  }

  private proofPage(id: string, account: string | undefined, after: number | undefined): Promise<OrderProof> {
    return this.answer(this.client.GET('/v1/orders/{order_id}/proof', { params: { path: { order_id: id }, query: { account, after } } }))
  }

  /** The history as the server writes it in CSV (`?format=csv`), every page, one header. */
  async historyCsv(id: string, account: string | undefined): Promise<string> {
    let text = ''
    for (let after: number | undefined, page = 0; ; page += 1) {
      const { data, response } = await this.client.GET('/v1/orders/{order_id}/events', {
        params: { path: { order_id: id }, query: { account, after, format: 'csv' } }, parseAs: 'text',
      })
      const body = await this.answer(Promise.resolve({ data, error: undefined, response }))
      text += page === 0 ? body : body.slice(body.indexOf('\r\n') + 2)
      const next = /[?&]after=(\d+)/.exec(response.headers.get('link') ?? '')?.[1]
      if (next === undefined) return text
      after = Number(next)
    }
  }

  /** The operator's webhook endpoints (auditor keys only). */
  webhookEndpoints(): Promise<Answer<'listWebhookEndpoints'>> {
    return this.answer(this.client.GET('/v1/webhooks/endpoints'))
  }

  /** A page of the webhook delivery log, newest first (auditor keys only). */
  webhookDeliveries(query: DeliveryQuery): Promise<DeliveryPage> {
    return this.answer(this.client.GET('/v1/webhooks/deliveries', { params: { query } }))
  }

  publicKeys(): Promise<PublicKeys> {
    return this.answer(this.client.GET('/v1/audit/public-keys'))
  }

  /** An image's bytes as a blob: an <img> cannot send the key, so the page fetches and shows a blob URL. */
  image(id: string, which: 'pod' | 'signature', account: string | undefined): Promise<Blob> {
    const init = { params: { path: { order_id: id }, query: { account } }, parseAs: 'blob' as const }
    return this.answer(which === 'pod' ? this.client.GET('/v1/orders/{order_id}/pod', init) : this.client.GET('/v1/orders/{order_id}/signature', init))
  }
}
