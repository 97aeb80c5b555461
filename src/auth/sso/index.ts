import type { Config } from '../../config.js';
import { createBackstageAuth, type BackstageAuth } from '../backstage.js';
import type { SignInDeps } from '../sign-in.js';
import { createSsoService, type SsoService } from './flow.js';
import { guardedFetch } from './guarded-fetch.js';
import { ProviderConfigurations } from './providers.js';

/** Browser single sign-on (github, google, microsoft) and Backstage tokens, over one provider cache. */
export interface SingleSignOn {
  readonly flows: SsoService;
  readonly backstage: BackstageAuth;
}

/** Single sign-on (GitHub, Google, Microsoft, Backstage) wired from the sign-in dependencies and settings. */
export function createSingleSignOn(
  signIn: SignInDeps,
  config: Pick<Config, 'SSO_ALLOW_INSECURE_HTTP' | 'SSO_ALLOW_PRIVATE_ADDRESSES' | 'BACKSTAGE_JWKS_COOLDOWN_SECONDS'>,
): SingleSignOn {
  const providers = new ProviderConfigurations(signIn);
  // Every request to a URL an administrator configured goes through the private-address guard.
  const fetchGuarded = guardedFetch({ allowPrivate: config.SSO_ALLOW_PRIVATE_ADDRESSES });
  return {
    flows: createSsoService({ signIn, providers, allowInsecureHttp: config.SSO_ALLOW_INSECURE_HTTP, fetch: fetchGuarded }),
    backstage: createBackstageAuth({
      signIn,
      db: signIn.db,
      providers,
      jwksCooldownMs: config.BACKSTAGE_JWKS_COOLDOWN_SECONDS * 1000,
      fetchJwks: fetchGuarded,
    }),
  };
}
