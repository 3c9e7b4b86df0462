import './styles.css'
import { Api } from './api.js'
import { fill, h, navigated } from './dom.js'
import { keyRefused } from './key-refused.js'
import { clearSession, loadSession, type Session } from './session.js'
import { orderPage } from './views/order.js'
import { ordersPage } from './views/orders.js'
import { signInPage } from './views/sign-in.js'
import { webhooksPage } from './views/webhooks.js'

/** Routes live in the fragment (#/orders?…, #/order?id=…): never sent to the server, never carrying the key. */
function route(): void {
  // The skip link's own target, not a page.
  if (location.hash === '#main') return
  navigated()
  const session = loadSession()
  renderHeader(session)
  if (session === null) {
    signInPage(() => {
      if (location.hash === '#/orders') route()
      else location.hash = '#/orders'
    })
    return
  }
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?', 2)
  const params = new URLSearchParams(query)
  // A key refused mid-session: back to sign-in, then to the page the auditor was on.
  const api = new Api(session.key, {
    baseUrl: location.origin,
    onRefused: keyRefused((notice) => {
      renderHeader(null)
      signInPage(route, notice)
    }),
  })
  if (path === '/order' && params.has('id')) void orderPage(api, session, params)
  else if (path === '/webhooks') void webhooksPage(api, params)
  else void ordersPage(api, session, path === '/orders' ? params : new URLSearchParams())
}

function renderHeader(session: Session | null): void {
  const bar = document.getElementById('session')
  if (bar === null) return
  if (session === null) {
    bar.replaceChildren()
    return
  }
  const out = h('button', { type: 'button', id: 'sign-out' }, 'Sign out')
  out.addEventListener('click', () => {
    clearSession()
    location.hash = ''
    route()
  })
  fill(bar, [
    h('a', { href: '#/orders' }, 'Orders'),
    // The webhook routes answer auditor keys only.
    session.auditor ? h('a', { href: '#/webhooks' }, 'Webhooks') : null,
    h('span', { class: 'who' }, `Key ${session.keyId}, ${session.auditor ? 'auditor (every account)' : `account ${session.account}`}`),
    out])
}

window.addEventListener('hashchange', route)
route()
