import { readFile } from 'node:fs/promises'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

export interface HotFunction {
  readonly name: string
  readonly where: string
  readonly selfMs: number
  readonly share: number
}

/**
 * The functions that spent the most time on the CPU themselves (self time) in a V8
 * `.cpuprofile` (what `node --cpu-prof` writes), summed over every node of the same function.
 */
export async function hottestFunctions(path: string, top = 20): Promise<HotFunction[]> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile
  const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const selfUs = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    const frame = frameOf.get(id)
    if (frame === undefined) return
    const where = frame.url === '' ? '' : `${shorten(frame.url)}:${frame.lineNumber + 1}`
    const key = `${frame.functionName || '(anonymous)'}\t${where}`
    selfUs.set(key, (selfUs.get(key) ?? 0) + delta)
    total += delta
  })
  return [...selfUs.entries()]
    .sort(([, a], [, b]) => b - a)
    .slice(0, top)
    .map(([key, us]) => {
      const [name = '', where = ''] = key.split('\t')
      return { name, where, selfMs: us / 1000, share: total === 0 ? 0 : us / total }
    })
}

function shorten(url: string): string {
  const modules = url.lastIndexOf('node_modules/')
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length)
  const packages = url.indexOf('/packages/')
  return packages >= 0 ? url.slice(packages + 1) : url.replace(/^file:\/\//, '')
}
