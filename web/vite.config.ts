// The explorer's build: web/index.html and web/src into web/dist, which the api serves at `/` (api/explorer.ts).
// Everything is bundled: the page loads nothing from another host.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // lightweight-charts is most of the bundle; it is fetched only by the token page.
    chunkSizeWarningLimit: 250,
  },
});
