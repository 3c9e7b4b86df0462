import t from 'tap'
import { RefusalCache } from '../../src/auth/refusal-cache.js'

t.test('the refusal cache answers only for keys refused lately, for its time to live, and keeps a bounded number', async (t) => {
  const cache = new RefusalCache(50, 2)
  t.equal(cache.get('wb_live_a'), undefined, 'empty')
  cache.set('wb_live_a', 'The API key is not valid')
  t.equal(cache.get('wb_live_a'), 'The API key is not valid')
  t.equal(cache.get('wb_live_b'), undefined, 'another key is not refused')
  cache.set('wb_live_b', 'b')
  cache.set('wb_live_c', 'c')
  t.equal(cache.get('wb_live_a'), undefined, 'past the bound the oldest went')
  t.same([cache.get('wb_live_b'), cache.get('wb_live_c')], ['b', 'c'])
  await new Promise((resolve) => setTimeout(resolve, 80))
  t.equal(cache.get('wb_live_b'), undefined, 'expired')
})
