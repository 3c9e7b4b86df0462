/**
 * The fields of an order event's data that name an image: a sealed blob's name (`blob`, schema
 * version 2) or, for an event stored before sealing, the image's own sha256 (its blob's name then).
 */
const IMAGE_FIELDS = ['pod', 'signature'] as const

/** The blob name of each image an event's data names (its proof of delivery, its signature). */
export function imagesNamedBy(data: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = []
  for (const field of IMAGE_FIELDS) {
    const ref = data[field] as { blob?: unknown; sha256?: unknown } | null | undefined
    if (typeof ref?.blob === 'string') found.push(ref.blob)
    else if (typeof ref?.sha256 === 'string') found.push(ref.sha256)
  }
  return found
}
