import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from '../precompress';

// Paths from this file, not the working directory: `npm run build:graphiql` runs from the package root.
const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * GraphiQL for `GET /api/graphql` (src/graphql/graphiql.ts): every script, stylesheet and font is
 * bundled here and served by the service, so the page works with no internet. Hashed files land in
 * dist/graphiql/assets and are served at /api/graphql/assets/.
 */
export default defineConfig({
  root: here,
  base: '/api/graphql/',
  // Hashed files are also written brotli- and gzip-compressed, served as they are (src/graphql/graphiql.ts).
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/graphiql', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // GraphiQL (codemirror, graphql-js, markdown-it, React) is one ~1 MB graph that changes only with
    // its version; hashed names keep it cached across releases.
    chunkSizeWarningLimit: 1500,
    // Fonts (GraphiQL embeds Roboto and Fira Code as data: URLs) stay inline: no extra round trips.
  },
});
