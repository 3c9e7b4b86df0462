/** The fields of an order event's data that name an image (an ImageRef with its sha256). */
const IMAGE_FIELDS = ['pod', 'signature'] as const

/** The sha256 of each image an event's data names (its proof of delivery, its signature). */
export function imagesNamedBy(data: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = []
  for (const field of IMAGE_FIELDS) {
    const ref = data[field] as { sha256?: unknown } | null | undefined
    if (typeof ref?.sha256 === 'string') found.push(ref.sha256)
  }
  return found
}
