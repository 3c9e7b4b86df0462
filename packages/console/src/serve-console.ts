import { readdir, readFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import { CONSOLE_CSP } from './console-csp.js'

/** Where `vite build` puts the console (vite.config.ts). */
export const CONSOLE_ROOT = fileURLToPath(new URL('../web/', import.meta.url))

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
}

interface ConsoleFile {
  readonly body: Buffer
  readonly type: string
  /** Vite names every asset by its content's hash: those never change under their name. */
  readonly immutable: boolean
}

export interface ConsoleOptions {
  /** The built console; CONSOLE_ROOT by default. */
  readonly root?: string
}

/**
 * Serves the built console at /console/: the few files `vite build` wrote, read once at start and
 * served from memory, so no request path ever reaches the file system. The pages need no key (the
 * key is typed into the page and sent by it to the API); they carry the console's own CSP in place
 * of the API's allow-nothing one (packages/http/src/plugins/security-headers.ts sets that one
 * first, on every answer). With no build, /console answers 404 and the log says why.
 */
async function serveConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const root = options.root ?? CONSOLE_ROOT
  const files = await readBuilt(root)
  if (files.size === 0) app.log.warn(`the console is not built (no files in ${root}); run pnpm build`)
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true, rateLimit: false }
    })
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', CONSOLE_CSP)
    })
    // Pages, not API: kept out of the OpenAPI document (@fastify/swagger reads `hide`).
    const schema = { hide: true } as FastifySchema
    scope.get('/console', { schema }, async (_request, reply) => reply.redirect('/console/'))
    scope.get('/console/*', { schema }, async (request, reply) => {
      const path = (request.params as { '*': string })['*']
      const file = files.get(path === '' ? 'index.html' : path)
      if (file === undefined) {
        reply.callNotFound()
        return reply
      }
      return reply.type(file.type)
        .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(file.body)
    })
  })
}

async function readBuilt(root: string): Promise<Map<string, ConsoleFile>> {
  const names = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])
  const files = new Map<string, ConsoleFile>()
  for (const entry of names) {
    if (!entry.isFile()) continue
    const full = join(entry.parentPath, entry.name)
    const name = relative(root, full).split(sep).join('/')
    files.set(name, {
      body: await readFile(full),
      type: TYPES[extname(name)] ?? 'application/octet-stream',
      immutable: name.startsWith('assets/'),
    })
  }
  return files
}

export default fp(serveConsole, { name: 'waybill-console' })
