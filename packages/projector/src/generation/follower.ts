import { currentGeneration, generationMarker, type GenerationFiles } from './pointer.js'

/** What a follower holds open: anything that can be closed. */
interface Closable {
  close(): void
}

/**
 * Keeps one handle on the live generation of a projection's file and follows a rebuild's swap:
 * before each use, one `stat` of the pointer; when it moved, the new file is opened first and
 * the old handle closed after, so a reader answers from one complete file or the other, never
 * from none. Used alike by the projections' writers and their readers.
 */
export class GenerationFollower<Handle extends Closable> {
  private handle: Handle | null = null
  private marker = ''
  private currentPath: string | null = null

  constructor(
    private readonly dataDir: string,
    private readonly files: GenerationFiles,
    private readonly open: (path: string) => Handle,
  ) {}

  /** The path of the file held, null before the first `current()`. */
  get path(): string | null {
    return this.currentPath
  }

  /** Whether `current()` would open another file (or the first one). */
  moved(): boolean {
    return this.handle === null || generationMarker(this.dataDir, this.files) !== this.marker
  }

  /** The handle on the live file: the one held, or, after a swap, a new one (the old one closed). */
  current(): Handle {
    if (this.handle !== null && !this.moved()) return this.handle
    const generation = currentGeneration(this.dataDir, this.files)
    if (this.handle !== null && generation.path === this.currentPath) {
      this.marker = generation.marker
      return this.handle
    }
    const next = this.open(generation.path)
    const previous = this.handle
    this.handle = next
    this.marker = generation.marker
    this.currentPath = generation.path
    previous?.close()
    return next
  }

  /** Lets go of the handle; the next `current()` opens the live file again. */
  close(): void {
    this.handle?.close()
    this.handle = null
    this.marker = ''
  }
}
