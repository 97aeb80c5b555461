import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Paths from this file, not the working directory: `npm run build:ui` runs from the package root.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** The web UI: built into dist/web, which the service serves at / (src/http/web-ui.ts). */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  // The server swaps this placeholder for a per-request nonce (Content-Security-Policy style-src).
  html: { cspNonce: '__IL_CSP_NONCE__' },
  build: {
    outDir: `${here}../dist/web`,
    emptyOutDir: true,
    sourcemap: false,
    // react-admin with MUI is one ~1.2 MB (≈380 kB gzipped) dependency graph; finer chunks would be
    // circular (MUI and react-admin import each other's helpers). The app's own code changes more
    // often, so it is its own chunk and the vendor chunk stays cached across releases.
    chunkSizeWarningLimit: 1300,
    rollupOptions: {
      output: {
        manualChunks: (id) => (id.includes('/node_modules/') ? 'vendor' : undefined),
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
