import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress';

// Paths from this file, not the working directory: `npm run build:ui` runs from the package root.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** The web UI: built into dist/web, which the service serves at / (src/http/web-ui.ts). */
export default defineConfig({
  root: here,
  base: '/',
  // The server swaps this placeholder for a per-request nonce (Content-Security-Policy style-src).
  html: { cspNonce: '__IL_CSP_NONCE__' },
  build: {
    outDir: `${here}../dist/web`,
    emptyOutDir: true,
    sourcemap: false,
    // The sign-in page loads only what it renders: every other page is a lazy chunk of its own
    // (src/lazyPages.tsx) and Rollup splits the dependencies by who uses them (docs/benchmarks.md,
    // "Web UI bundle"). The entry chunk is react-admin's core with MUI's. Rollup warns that ra-core's
    // util/index and FieldTitle form a cycle split across chunks; the cycle only ever runs from a lazy
    // chunk into the entry, which has run already, and the browser tests load every page. Forcing
    // ra-core into one chunk instead would add 25 kB (gzip) to the sign-in page.
    chunkSizeWarningLimit: 1300,
    rollupOptions: {
      onwarn(warning, warn) {
        // The cycle described above, reported once per importing module.
        if (
          warning.message.includes('node_modules/ra-core/dist/util/FieldTitle.js') &&
          warning.message.includes('circular dependency between chunks')
        )
          return;
        warn(warning);
      },
    },
  },
  plugins: [react(), precompress()],
  // `npm run dev`: the UI with hot reload, the API from the service (on PORT, default 8080).
  server: { proxy: { '/api': { target: `http://127.0.0.1:${process.env.PORT ?? '8080'}`, ws: true } } },
});
