import type { Api, History } from '../api.js'
import { show as showValue } from '../changes.js'
import { h } from '../dom.js'
import { checkImage, recordedImages, type ImageFailure } from '../verify/images.js'
import { messageOf } from './orders.js'

/** Blob URLs of the images on the page shown last; revoked when another page is shown. */
let imageUrls: string[] = []

export function revokeImages(): void {
  for (const url of imageUrls) URL.revokeObjectURL(url)
  imageUrls = []
}

/**
 * The order's images, each shown only once its bytes hash to the sha256 the latest event carrying
 * it recorded (in its signed leaf); `checked` settles with the images that did not, which fail the
 * verdict, as does an image that cannot be loaded at all (it cannot be checked).
 */
export function imagesSection(api: Api, history: History, id: string, account: string | undefined): { section: HTMLElement | null; checked: Promise<ImageFailure[]> } {
  const images = recordedImages(history.events)
  if (images.length === 0) return { section: null, checked: Promise.resolve([]) }
  const section = h('section', { 'aria-labelledby': 'images-title' }, h('h2', { id: 'images-title' }, 'Images'))
  const checks = images.map(async (image): Promise<ImageFailure | null> => {
    const img = h('img', { id: `image-${image.which}`, alt: image.label })
    const event = history.events.find((candidate) => candidate.revision === image.revision)
    const recorded = image.inLeaf ? event?.data[image.which] : event?.fields?.[image.which]
    section.append(h('figure', {}, img, h('figcaption', {}, `${image.label}: ${showValue(recorded)}`,
      image.inLeaf ? null : h('small', { class: 'unsigned' }, ' (its sha256 as the server opened it from the sealed event; the leaf commits to it sealed)'))))
    let blob: Blob
    try {
      blob = await api.image(id, image.which, account)
    } catch (error) {
      // The server serves an image only when its bytes are what the event recorded: one it cannot
      // serve (a changed or missing file answers 500) cannot be checked here either.
      const reason = `the ${image.label.toLowerCase()} that revision ${image.revision} recorded could not be loaded (${messageOf(error)}), so it cannot be checked`
      img.replaceWith(h('p', { class: 'error', role: 'alert' }, `${image.label} could not be loaded: ${messageOf(error)}`))
      return { which: image.which, revision: image.revision, reason }
    }
    const failure = await checkImage(new Uint8Array(await blob.arrayBuffer()), image)
    if (failure !== null) {
      img.replaceWith(h('p', { class: 'error', role: 'alert' }, `${image.label} not shown: ${failure.reason}.`))
      return failure
    }
    const url = URL.createObjectURL(blob)
    imageUrls.push(url)
    img.src = url
    return null
  })
  return { section, checked: Promise.all(checks).then((results) => results.filter((failure) => failure !== null)) }
}
