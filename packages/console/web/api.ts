import type { History, Order, OrderList, OrderProof, PublicKey } from './wire.js'

/** The header the API reads its key from (README "HTTP API"). */
const KEY_HEADER = 'Service-Api-Key'

/** An RFC 9457 problem body from the API, or what stands in for one when the answer is not JSON. */
export interface Problem {
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail)
  }
}

async function problemOf(response: Response): Promise<Problem> {
  const fallback = { status: response.status, code: 'http_' + String(response.status), title: response.statusText, detail: response.statusText }
  try {
    const body = await response.json() as Partial<Problem>
    return { ...fallback, ...body }
  } catch {
    return fallback
  }
}

/** A client for one key; the key goes in the header of each request and nowhere else. */
export class Api {
  /**
   * `onRefused`: what to do when the API answers 401 (the key was revoked, rotated or expired
   * since sign-in). Sign-in leaves it out: there the refusal is the answer it shows.
   */
  constructor(private readonly key: string, private readonly onRefused?: (problem: Problem) => void) {}

  private async get(path: string, query: Readonly<Record<string, string | undefined>> = {}): Promise<Response> {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value)
    const search = params.size > 0 ? `?${params.toString()}` : ''
    const response = await fetch(`/${path}${search}`, { headers: { [KEY_HEADER]: this.key }, cache: 'no-store' })
    if (response.status === 401 && this.onRefused !== undefined) {
      this.onRefused(await problemOf(response))
      // The handler has replaced the page with the sign-in page: the page that asked must not go
      // on and draw its error over it, so its request never settles.
      return new Promise<never>(() => undefined)
    }
    if (!response.ok) throw new ApiError(await problemOf(response))
    return response
  }

  private async json<T>(path: string, query: Readonly<Record<string, string | undefined>> = {}): Promise<T> {
    return await (await this.get(path, query)).json() as T
  }

  ping(): Promise<{ readonly account: string; readonly key_id: string; readonly test: boolean }> {
    return this.json('ping')
  }

  listOrders(query: Readonly<Record<string, string | undefined>>): Promise<OrderList> {
    return this.json('v1/orders', query)
  }

  order(id: string, account: string | undefined): Promise<Order> {
    return this.json(`v1/orders/${encodeURIComponent(id)}`, { account })
  }

  history(id: string, account: string | undefined): Promise<History> {
    return this.json(`v1/orders/${encodeURIComponent(id)}/events`, { account })
  }

  proof(id: string, account: string | undefined): Promise<OrderProof> {
    return this.json(`v1/orders/${encodeURIComponent(id)}/proof`, { account })
  }

  publicKey(): Promise<PublicKey> {
    return this.json('v1/audit/public-key')
  }

  /** An image's bytes as a blob: an <img> cannot send the key, so the page fetches and shows a blob URL. */
  async image(id: string, which: 'pod' | 'signature', account: string | undefined): Promise<Blob> {
    return (await this.get(`v1/orders/${encodeURIComponent(id)}/${which}`, { account })).blob()
  }
}
