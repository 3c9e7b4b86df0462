import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The console is served at /console/ by src/serve-console.ts from dist/web.
export default defineConfig({
  root: fileURLToPath(new URL('web', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('dist/web', import.meta.url)),
    emptyOutDir: true,
    // One small script and one stylesheet; no inline module preload polyfill (the CSP has no 'unsafe-inline').
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
})
