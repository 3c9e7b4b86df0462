import { createHash } from 'node:crypto'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { openFileBlobStore } from '@waybill/event-store'
import { SIGNING_KEY_FILE } from '@waybill/projector'

/**
 * The data dir the previous release wrote (schema version 1: personal fields in plain form, images
 * under their own sha256), made by that release's own code and kept as SQL dumps beside its
 * images and its signing key (packages/projector/test/fixtures/previous-release/make-fixture.mjs):
 * 24 orders in two accounts, 60 order events, five heads over the first 50.
 */
const FIXTURE = new URL('../../projector/test/fixtures/previous-release/', import.meta.url).pathname

export const FIXTURE_IMAGES = { pod: await readFile(join(FIXTURE, 'pod.png')), signature: await readFile(join(FIXTURE, 'signature.png')) }

/** The personal values the fixture's events hold for order P-n, each found nowhere else. */
export function fixtureValues(n: number): string[] {
  const values = [`Dock Nr. ${n}.`, `House ${n}, Main St`, `House ${n}, Side St`]
  if (n % 4 === 0) values.push(`Customer Nr. ${n % 4} asked, order ${n}.`)
  if (n % 4 === 1) values.push(`Recipient Nr. ${n}.`)
  return values
}

/** Every personal value of the fixture, and its images' bytes and sha256 (hex). */
export function allFixtureValues(): Buffer[] {
  const values: Buffer[] = []
  for (let n = 0; n < 24; n += 1) values.push(...fixtureValues(n).map((value) => Buffer.from(value)))
  for (let c = 0; c < 4; c += 1) values.push(Buffer.from(`Customer Nr. ${c}`))
  for (const bytes of Object.values(FIXTURE_IMAGES)) values.push(bytes.subarray(40, 100), Buffer.from(createHash('sha256').update(bytes).digest('hex')))
  return values
}

/**
 * Writes the previous release's data dir into `dataDir` (its event log, read model and heads,
 * its two images in the blob store) and its signing key into `keyDir`, as its operator would
 * have them after upgrading to this Waybill.
 */
export async function previousReleaseDataDir(dataDir: string, keyDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  for (const name of ['events', 'read-model', 'audit-heads']) {
    const db = new Sqlite(join(dataDir, `${name}.sqlite`))
    db.exec(await readFile(join(FIXTURE, `${name}.sql`), 'utf8'))
    db.close()
  }
  const blobs = await openFileBlobStore(join(dataDir, 'blobs'))
  for (const bytes of Object.values(FIXTURE_IMAGES)) await blobs.put(bytes, createHash('sha256').update(bytes).digest('hex'))
  await mkdir(keyDir, { recursive: true, mode: 0o700 })
  await chmod(keyDir, 0o700)
  await writeFile(join(keyDir, SIGNING_KEY_FILE), await readFile(join(FIXTURE, 'audit-private-key.pem')), { mode: 0o600 })
}
