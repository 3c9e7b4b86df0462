/**
 * A stream's category: the text before its first `-` (`order-acme-42` → `order`), or the whole
 * name when it has none. This is EventStoreDB's `$by_category` rule.
 */
export function categoryOf(streamName: string): string {
  const dash = streamName.indexOf('-')
  return dash === -1 ? streamName : streamName.slice(0, dash)
}
