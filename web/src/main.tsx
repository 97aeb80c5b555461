import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';

/**
 * The page's Content-Security-Policy admits styles only with the nonce the server put into this
 * page (Vite's `csp-nonce` meta); emotion, which injects MUI's styles, must carry it.
 */
const nonceMeta = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
const nonce = nonceMeta?.nonce || undefined;
const cache = createCache({ key: 'il', nonce, prepend: true });

const root = document.getElementById('root');
if (!root) throw new TypeError('index.html has no #root element');

// Real paths (/login, /resources/<id>/show), not #-routes: SSO callbacks end on /login?error=… and the server falls back to index.html.
createRoot(root).render(
  <StrictMode>
    <CacheProvider value={cache}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </CacheProvider>
  </StrictMode>,
);
