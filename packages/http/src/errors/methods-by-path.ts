/**
 * The methods each route path answers, for the 405 of a known path asked with another method.
 * Route paths are Fastify's: `:param` matches one segment, `*` the rest.
 */
export class MethodsByPath {
  private readonly routes: { readonly pattern: RegExp; readonly methods: readonly string[] }[] = []

  add(url: string, method: string | readonly string[]): void {
    const source = url.split('/').map((segment) => segment.startsWith(':') ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')).join('/')
    this.routes.push({ pattern: new RegExp(`^${source}$`), methods: typeof method === 'string' ? [method] : method })
  }

  /** Every method some route answers on `path`, sorted; empty for an unknown path. */
  of(path: string): string[] {
    const found = new Set<string>()
    for (const route of this.routes) {
      if (route.pattern.test(path)) for (const method of route.methods) found.add(method)
    }
    return [...found].sort()
  }
}
