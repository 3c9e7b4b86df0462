import { WaybillError } from '@waybill/domain'

const FIELD = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z_][A-Za-z0-9_]*)\])?$/

/**
 * Turns form fields into the same shape a JSON body has. Only `name` and `name[field]` are
 * understood (one level, which is all the event envelope needs); anything else, a repeated
 * field, or a name used both as a value and as an object is `bad_request`. The maps have no
 * prototype, so a field called `__proto__` or `constructor` is plain data.
 */
export function formFieldsToBody(fields: Iterable<readonly [string, string]>): Record<string, unknown> {
  const body = Object.create(null) as Record<string, unknown>
  for (const [name, value] of fields) {
    const match = FIELD.exec(name)
    if (match === null) throw new WaybillError('bad_request', `form field "${clip(name)}" is not of the form name or name[field]`)
    const [, outer, inner] = match as unknown as [string, string, string | undefined]
    const existing = body[outer]
    if (inner === undefined) {
      if (existing !== undefined) throw repeated(name)
      body[outer] = value
      continue
    }
    let nested: Record<string, unknown>
    if (existing === undefined) {
      nested = Object.create(null) as Record<string, unknown>
      body[outer] = nested
    } else if (typeof existing === 'object' && existing !== null) {
      nested = existing as Record<string, unknown>
    } else {
      throw repeated(outer)
    }
    if (nested[inner] !== undefined) throw repeated(name)
    nested[inner] = value
  }
  return body
}

function repeated(name: string): WaybillError {
  return new WaybillError('bad_request', `form field "${clip(name)}" appears more than once`)
}

function clip(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name
}
