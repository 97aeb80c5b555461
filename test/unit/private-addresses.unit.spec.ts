import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, PrivateAddressRefused, type Resolve } from '../../src/auth/sso/guarded-fetch.js';
import { hasPrivateAddressLiteral, isPrivateAddress } from '../../src/auth/sso/private-addresses.js';

describe('private, loopback and link-local addresses (what a configured URL may not reach)', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fd12:3456::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:c0a8:0101::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1'])(
    'allows the public %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );

  it('recognises a URL whose host is written as such an address, and leaves host names to resolution', () => {
    expect(hasPrivateAddressLiteral('http://127.0.0.1:5432/')).toBe(true);
    expect(hasPrivateAddressLiteral('http://[::1]/jwks')).toBe(true);
    expect(hasPrivateAddressLiteral('http://169.254.169.254/latest/meta-data/')).toBe(true);
    expect(hasPrivateAddressLiteral('https://portal.example.com/jwks')).toBe(false);
    expect(hasPrivateAddressLiteral('http://localhost:7007/jwks')).toBe(false);
  });
});

describe('the guarded fetch of a JWKS (DNS answers mocked: no resolver here knows these names)', () => {
  let server: Server;
  let port: number;
  let served = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      served += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const init = () => ({ headers: new Headers(), method: 'GET' as const, signal: AbortSignal.timeout(5000) });
  const resolvingTo =
    (...addresses: string[]): Resolve =>
    () =>
      Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

  it('refuses a public-looking name that resolves to a loopback address, before connecting', async () => {
    const before = served;
    const fetch = guardedFetch({ allowPrivate: false, resolve: resolvingTo('127.0.0.1') });
    await expect(fetch(`http://portal.example.test:${port}/jwks`, init())).rejects.toThrow(PrivateAddressRefused);
    await expect(fetch(`http://portal.example.test:${port}/jwks`, init())).rejects.toThrow(
      'portal.example.test resolves to 127.0.0.1, a private, loopback or link-local address',
    );
    expect(served).toBe(before);
  });

  it('refuses a name when any of its addresses is private (a rebinding name answers both)', async () => {
    const fetch = guardedFetch({ allowPrivate: false, resolve: resolvingTo('93.184.216.34', '169.254.169.254') });
    await expect(fetch('http://metadata.example.test/latest', init())).rejects.toThrow('resolves to 169.254.169.254');
  });

  it('refuses a private address written in the URL without resolving anything', async () => {
    const fetch = guardedFetch({ allowPrivate: false, resolve: () => Promise.reject(new Error('must not resolve')) });
    await expect(fetch(`http://127.0.0.1:${port}/jwks`, init())).rejects.toThrow('127.0.0.1 resolves to 127.0.0.1');
  });

  it('with allowPrivate, connects to exactly the addresses it resolved (the name itself exists nowhere)', async () => {
    const fetch = guardedFetch({ allowPrivate: true, resolve: resolvingTo('127.0.0.1') });
    const response = await fetch(`http://portal.example.test:${port}/jwks`, init());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ keys: [] });
  });
});
