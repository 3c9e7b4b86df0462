import t from 'tap'
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { CONSOLE_CSP, serveConsole } from '../src/index.js'

async function appWith(root: string) {
  const app = Fastify({ logger: false })
  // Stands in for the ingress' allow-nothing policy (packages/http/src/plugins/security-headers.ts).
  app.addHook('onRequest', async (_request, reply) => { reply.header('content-security-policy', "default-src 'none'") })
  app.get('/v1/thing', async () => ({ ok: true }))
  await app.register(serveConsole, { root })
  return app
}

t.test('the built files are served under /console/ with the console CSP, the API keeps its own', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'console-'))
  await mkdir(join(root, 'assets'))
  await writeFile(join(root, 'index.html'), '<!doctype html><title>c</title>')
  await writeFile(join(root, 'assets', 'index-abc.js'), 'export {}')
  const app = await appWith(root)
  t.teardown(() => app.close())

  const page = await app.inject('/console/')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal(page.headers['content-security-policy'], CONSOLE_CSP)
  t.equal(page.headers['cache-control'], 'no-cache')
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'", "object-src 'none'"]) {
    t.ok(CONSOLE_CSP.split('; ').includes(directive), directive)
  }
  t.notMatch(CONSOLE_CSP, /unsafe/)

  const script = await app.inject('/console/assets/index-abc.js')
  t.equal(script.statusCode, 200)
  t.match(script.headers['content-type'], /^text\/javascript/)
  t.match(script.headers['cache-control'], /immutable/)

  const bare = await app.inject('/console')
  t.equal(bare.statusCode, 302)
  t.equal(bare.headers.location, '/console/')

  t.equal((await app.inject('/console/nope.js')).statusCode, 404)
  t.equal((await app.inject('/console/..%2f..%2fetc%2fpasswd')).statusCode, 404, 'only the built files, never a path on disk')
  t.equal((await app.inject('/v1/thing')).headers['content-security-policy'], "default-src 'none'", 'the API answers keep theirs')
})

t.test('with no build, /console answers 404', async (t) => {
  const app = await appWith(join(tmpdir(), 'no-such-console-build'))
  t.teardown(() => app.close())
  t.equal((await app.inject('/console/')).statusCode, 404)
})
