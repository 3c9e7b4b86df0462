/**
 * Builds elements from text and children only: nothing the server sends is ever parsed as HTML,
 * so an order's fields cannot inject markup or script.
 */
type Child = Node | string | null | undefined | false
type Children = Child | readonly Children[]
type Attributes = Readonly<Record<string, string | boolean | undefined>>

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: readonly Children[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    element.setAttribute(name, value === true ? '' : value)
  }
  fill(element, children, false)
  return element
}

/** Sets (or with `append`, adds to) an element's children, skipping the absent ones. */
export function fill(element: Element, children: readonly Children[], replace = true): void {
  const nodes = (children as readonly unknown[]).flat(Infinity as 1) as Child[]
  const present = nodes.filter((child): child is Node | string => child !== null && child !== undefined && child !== false)
  if (replace) element.replaceChildren(...present)
  else element.append(...present)
}

let navigations = 0

/** Called by the router on each navigation. */
export function navigated(): void {
  navigations += 1
}

/**
 * Taken by a page when it starts: whether it is still the page shown (no navigation since), so
 * that an answer which comes late never replaces the page the reader has moved on to.
 */
export function stillShown(): () => boolean {
  const mine = navigations
  return () => mine === navigations
}

/** Replaces the main region's content and moves focus to its heading, as a page change should. */
export function show(...children: readonly Children[]): void {
  const main = document.getElementById('main')
  if (main === null) return
  fill(main, children)
  const heading = main.querySelector('h1')
  if (heading !== null) {
    heading.setAttribute('tabindex', '-1')
    heading.focus()
  }
}
