import { categoryOf } from '../category.js'

/**
 * Stream-name prefixes for the server-side filter of the given categories. The category itself
 * is the prefix (not `<category>-`) so that a stream named just `order` is still found; the
 * exact check (`inCategories`) then drops what merely shares the prefix, such as `orders-1`.
 */
export function categoryPrefixes(categories: readonly string[]): string[] {
  return [...new Set(categories)].map((category) => {
    if (category === '' || category.includes('-')) {
      throw new RangeError(`"${category}" is not a category: it must be non-empty and contain no "-"`)
    }
    return category
  })
}

/** Streams and event types whose name starts with `$` belong to EventStoreDB itself. */
export function isSystemName(name: string): boolean {
  return name.startsWith('$')
}

/** Whether an event of `streamName` belongs to one of `categories`; every stream does when none are given. */
export function inCategories(streamName: string, categories: readonly string[] | undefined): boolean {
  return categories === undefined || categories.includes(categoryOf(streamName))
}
