import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openFileBlobStore, openMemoryEventStore } from '@waybill/event-store'
import { buildApp, openApiDocument } from '@waybill/http'
import { AuditLog, HeadStore, ReadModel } from '@waybill/projector'
import { defineCommand } from '../command.js'

const HELP = `Usage: waybill openapi

Prints the OpenAPI 3.1 document that \`waybill serve\` serves at /openapi.json (and shows at
/docs), built from the same routes with an in-memory store: no data directory, key or port is
touched. \`pnpm openapi\` writes it to packages/client/openapi.json, which the typed client is
generated from.`

export const command = defineCommand({
  name: 'openapi',
  help: HELP,
  async run({ stdout }) {
    const dir = await mkdtemp(join(tmpdir(), 'waybill-openapi-'))
    const store = openMemoryEventStore()
    const blobs = await openFileBlobStore(join(dir, 'blobs'))
    const readModel = new ReadModel(dir)
    // A throwaway audit log and heads file: the audit routes are documented, no real key is read.
    const log = new AuditLog(dir)
    const heads = HeadStore.inDataDir(dir)
    try {
      const app = await buildApp({ store, blobs, readModel, audit: { log, heads }, dataDir: dir, logLevel: 'silent' })
      await app.ready()
      stdout.write(`${JSON.stringify(openApiDocument(app), null, 2)}\n`)
      await app.close()
    } finally {
      heads.close()
      log.close()
      readModel.close()
      await store.close()
      await rm(dir, { recursive: true, force: true })
    }
    return 0
  },
})
