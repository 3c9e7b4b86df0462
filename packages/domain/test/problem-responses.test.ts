import t from 'tap'
import { problemResponses } from '../src/problem-responses.js'
import { ProblemSchema } from '../src/problem.js'

t.test('one response per status, listing the codes the route can answer with it', async (t) => {
  const publicRoute = problemResponses(['not_found'], { keyed: false })
  t.same(Object.keys(publicRoute), ['400', '403', '404', '429', '500', '503'])
  t.match(publicRoute[404]?.description, /Codes: not_found: /)
  t.notMatch(publicRoute[401]?.description ?? '', /api_key/, 'a public route has no key answers')
  const keyed = problemResponses(['no_body', 'locked', 'conflict'], { keyed: true })
  t.same(Object.keys(keyed), ['400', '401', '403', '409', '429', '500', '503'])
  t.match(keyed[400]?.description, /no_body: .*; bad_request: /, 'codes in catalogue order')
  t.match(keyed[401]?.description, /api_key_missing: .*; invalid_api_key: /)
  t.match(keyed[409]?.description, /locked: .*; conflict: /)
  t.match(keyed[503]?.description, /server_error: a passing failure/)
  t.match(keyed[429]?.description, /rate_limited: Too many requests for this API key or from this client address; .*Retry-After/)
  t.match(publicRoute[429]?.description, /rate_limited: Too many requests from this client address; .*Retry-After/)
  t.notMatch(publicRoute[429]?.description, /API key/, 'a route without a key is limited per address only')
  t.same(keyed[409]?.properties, ProblemSchema.properties, 'each is the problem body')
})
