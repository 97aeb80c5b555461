import { describe, expect, it } from 'vitest';
import { ssoLoginAggregate, type SsoLoginCommand } from '../../src/commands/sso-login.js';
import { emailInDomains } from '../../src/auth/sso/flow.js';
import { allowsPlainHttp } from '../../src/auth/sso/http-policy.js';
import type { SsoLoginEvent } from '../../src/events/identity.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(ssoLoginAggregate);

const ID = '33333333-3333-4333-8333-333333333333';
const startData = {
  id: ID,
  provider: 'google',
  stateHash: 'state-hash',
  nonce: 'nonce-1',
  codeVerifier: 'verifier-1',
  expiresAt: '2024-01-01T00:10:00.000Z',
};
const started: SsoLoginEvent = { type: 'SsoLoginStarted', data: startData };
const completed: SsoLoginEvent = { type: 'SsoLoginCompleted', data: {} };
const complete = (overrides: Partial<{ provider: string; stateHash: string; now: string }> = {}): SsoLoginCommand => ({
  type: 'CompleteSsoLogin',
  data: { provider: 'google', stateHash: 'state-hash', now: '2024-01-01T00:05:00.000Z', ...overrides },
});

describe('when a browser sign-in transaction is started and completed', () => {
  it('records the provider, the state hash, the nonce and the PKCE verifier', () => {
    spec.given([]).when({ type: 'StartSsoLogin', data: startData }).then([started]);
  });

  it('completes once, for the same provider and state, before it expires', () => {
    spec.given([started]).when(complete()).then([completed]);
  });

  it('refuses a second completion (a replayed callback)', () => {
    spec.given([started, completed]).when(complete()).thenThrows({ code: 'UNAUTHENTICATED', message: 'sign-in transaction refused: used' });
  });

  it('refuses an unknown transaction, another state, another provider and an expired one', () => {
    spec.given([]).when(complete()).thenThrows({ code: 'UNAUTHENTICATED', message: 'sign-in transaction refused: unknown' });
    spec
      .given([started])
      .when(complete({ stateHash: 'other' }))
      .thenThrows({ code: 'UNAUTHENTICATED', message: 'sign-in transaction refused: state mismatch' });
    spec
      .given([started])
      .when(complete({ provider: 'github' }))
      .thenThrows({ code: 'UNAUTHENTICATED', message: 'sign-in transaction refused: other provider' });
    spec
      .given([started])
      .when(complete({ now: '2024-01-01T00:10:00.000Z' }))
      .thenThrows({ code: 'UNAUTHENTICATED', message: 'sign-in transaction refused: expired' });
  });
});

describe('the domain filter', () => {
  it('accepts an address ending in @ and a listed domain, whatever the case', () => {
    expect(emailInDomains('Jane@Example.COM', ['example.com'])).toBe(true);
    expect(emailInDomains('jane@example.org', ['example.com', 'example.org'])).toBe(true);
  });

  it('refuses subdomains, look-alike suffixes and other domains', () => {
    expect(emailInDomains('jane@eu.example.com', ['example.com'])).toBe(false);
    expect(emailInDomains('jane@badexample.com', ['example.com'])).toBe(false);
    expect(emailInDomains('jane@example.com.evil.test', ['example.com'])).toBe(false);
  });

  it('lets everyone in when no domain is listed', () => {
    expect(emailInDomains('anyone@anywhere.test', [])).toBe(true);
  });
});

describe('plain http to identity providers', () => {
  it('is allowed to loopback only, unless the operator opts in', () => {
    expect(allowsPlainHttp('http://127.0.0.1:9000/x', false)).toBe(true);
    expect(allowsPlainHttp('http://localhost/x', false)).toBe(true);
    expect(allowsPlainHttp('http://[::1]:80/x', false)).toBe(true);
    expect(allowsPlainHttp('http://idp.internal/x', false)).toBe(false);
    expect(allowsPlainHttp('http://idp.internal/x', true)).toBe(true);
    expect(allowsPlainHttp('https://idp.example.com/x', true)).toBe(false);
  });
});
