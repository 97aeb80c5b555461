import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** The ConfigError loadConfig throws for `env` (fails the test when it does not throw one). */
function configErrorFor(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  describe('when the environment is empty', () => {
    const config = loadConfig({});

    it('listens on 127.0.0.1:8080', () => {
      expect(config.PORT).toBe(8080);
      expect(config.HOST).toBe('127.0.0.1');
    });

    it('derives BASE_URL from the port', () => {
      expect(config.BASE_URL).toBe('http://localhost:8080');
    });

    it('keeps data in ./data, resolved to an absolute path', () => {
      expect(config.DATA_DIR).toBe(path.resolve('data'));
      expect(path.isAbsolute(config.DATA_DIR)).toBe(true);
    });

    it('runs embedded, with events in postgres', () => {
      expect(config.EVENT_STORE).toBe('postgres');
      expect(config.DATABASE_URL).toBeUndefined();
      expect(config.embedded).toBe(true);
    });

    it('turns the approval flow on, logs at info and caps pages at 1000 rows', () => {
      expect(config.APPROVAL_FLOW).toBe(true);
      expect(config.LOG_LEVEL).toBe('info');
      expect(config.MAX_PAGE_SIZE).toBe(1000);
    });
  });

  describe('when variables are set', () => {
    it('derives BASE_URL from a custom PORT', () => {
      expect(loadConfig({ PORT: '9090' }).BASE_URL).toBe('http://localhost:9090');
    });

    it('takes an explicit BASE_URL without its trailing slash', () => {
      expect(loadConfig({ BASE_URL: 'https://ledger.example.com/' }).BASE_URL).toBe('https://ledger.example.com');
    });

    it('resolves a relative DATA_DIR against the working directory', () => {
      expect(loadConfig({ DATA_DIR: 'var/il' }).DATA_DIR).toBe(path.resolve('var/il'));
    });

    it('reads TRUSTED_PROXIES as a list of addresses, ranges and named ranges', () => {
      expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,loopback' }).TRUSTED_PROXIES).toEqual([
        '10.0.0.0/8',
        '192.168.1.7',
        'fd00::/8',
        'loopback',
      ]);
      expect(loadConfig({}).TRUSTED_PROXIES).toBeUndefined();
    });

    it('reads APPROVAL_FLOW=false as false', () => {
      expect(loadConfig({ APPROVAL_FLOW: 'false' }).APPROVAL_FLOW).toBe(false);
    });

    it('prepares repeated statements unless DATABASE_PREPARED_STATEMENTS=false', () => {
      expect(loadConfig({}).DATABASE_PREPARED_STATEMENTS).toBe(true);
      expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
    });

    it('leaves embedded mode when DATABASE_URL and SECRET_KEY are set', () => {
      const config = loadConfig({ DATABASE_URL: 'postgres://db.example.com/il', SECRET_KEY, TOKEN_SIGNING_KEY: '{}' });
      expect(config.embedded).toBe(false);
      expect(config.DATABASE_URL).toBe('postgres://db.example.com/il');
    });

    it('reads READ_DATABASE_URL as a list of standbys, beside DATABASE_URL only', () => {
      const primary = { DATABASE_URL: 'postgres://db.example.com/il', SECRET_KEY, TOKEN_SIGNING_KEY: '{}' };
      const config = loadConfig({ ...primary, READ_DATABASE_URL: ' postgres://r1.example.com/il, postgresql://r2.example.com/il ,' });
      expect(config.READ_DATABASE_URL).toEqual(['postgres://r1.example.com/il', 'postgresql://r2.example.com/il']);
      expect(configErrorFor({ ...primary, READ_DATABASE_URL: 'mysql://r1/il' }).message).toMatch(/READ_DATABASE_URL: must be postgres:/);
      expect(configErrorFor({ READ_DATABASE_URL: 'postgres://r1.example.com/il' }).message).toMatch(
        /READ_DATABASE_URL: needs DATABASE_URL/,
      );
    });

    it('accepts eventstoredb with its connection string', () => {
      const config = loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'esdb://localhost:2113?tls=false' });
      expect(config.EVENT_STORE).toBe('eventstoredb');
      expect(config.EVENTSTOREDB_URL).toBe('esdb://localhost:2113?tls=false');
    });
  });

  describe('when a variable is an empty string', () => {
    it('treats it as unset and applies the default', () => {
      const config = loadConfig({
        PORT: '',
        HOST: '',
        BASE_URL: '',
        DATA_DIR: '',
        EVENT_STORE: '',
        APPROVAL_FLOW: '',
        LOG_LEVEL: '',
        MAX_PAGE_SIZE: '',
      });
      expect(config).toMatchObject({
        PORT: 8080,
        HOST: '127.0.0.1',
        BASE_URL: 'http://localhost:8080',
        DATA_DIR: path.resolve('data'),
        EVENT_STORE: 'postgres',
        APPROVAL_FLOW: true,
        LOG_LEVEL: 'info',
        MAX_PAGE_SIZE: 1000,
      });
    });

    it('treats an empty DATABASE_URL as unset, so no SECRET_KEY is required', () => {
      const config = loadConfig({ DATABASE_URL: '', SECRET_KEY: '' });
      expect(config.embedded).toBe(true);
      expect(config.SECRET_KEY).toBeUndefined();
    });

    it('treats an empty SECRET_KEY as missing when DATABASE_URL is set', () => {
      expect(configErrorFor({ DATABASE_URL: 'postgres://db.example.com/il', SECRET_KEY: '' }).message).toMatch(/^\s+SECRET_KEY: /m);
    });
  });

  describe('when a variable is invalid', () => {
    const cases: [string, NodeJS.ProcessEnv, string][] = [
      ['PORT is not a number', { PORT: 'eighty' }, 'PORT'],
      ['PORT is out of range', { PORT: '70000' }, 'PORT'],
      ['PORT is not whole', { PORT: '80.5' }, 'PORT'],
      // Number(' ') is 0: blanks must not silently become "any free port".
      ['PORT is only blanks', { PORT: '  ' }, 'PORT'],
      ['BASE_URL is not an absolute URL', { BASE_URL: 'not a url' }, 'BASE_URL'],
      // Parses as a URL with the scheme "localhost:", but is no address a browser can be redirected to.
      ['BASE_URL has no http(s) scheme', { BASE_URL: 'localhost:8080' }, 'BASE_URL'],
      ['BASE_URL is not http or https', { BASE_URL: 'ftp://ledger.example.com' }, 'BASE_URL'],
      ['LOG_LEVEL is not a pino level', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
      ['EVENT_STORE is unknown', { EVENT_STORE: 'mysql' }, 'EVENT_STORE'],
      ['EVENT_STORE=eventstoredb comes without EVENTSTOREDB_URL', { EVENT_STORE: 'eventstoredb' }, 'EVENTSTOREDB_URL'],
      ['DATABASE_URL comes without SECRET_KEY', { DATABASE_URL: 'postgres://db.example.com/il' }, 'SECRET_KEY'],
      ['DATABASE_URL is not a postgres URL', { DATABASE_URL: 'mysql://db.example.com/il', SECRET_KEY }, 'DATABASE_URL'],
      ['DATABASE_URL comes without TOKEN_SIGNING_KEY', { DATABASE_URL: 'postgres://db.example.com/il', SECRET_KEY }, 'TOKEN_SIGNING_KEY'],
      ['APPROVAL_FLOW is neither true nor false', { APPROVAL_FLOW: 'maybe' }, 'APPROVAL_FLOW'],
      ['MAX_PAGE_SIZE is zero', { MAX_PAGE_SIZE: '0' }, 'MAX_PAGE_SIZE'],
      ['INITIAL_ADMIN_PASSWORD is short', { INITIAL_ADMIN_PASSWORD: 'short-one' }, 'INITIAL_ADMIN_PASSWORD'],
      ['TRUSTED_PROXIES names a host, not an address', { TRUSTED_PROXIES: 'proxy.internal' }, 'TRUSTED_PROXIES'],
      ['TRUSTED_PROXIES has a prefix too long for IPv4', { TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES'],
      ['INITIAL_ADMIN_PASSWORD is a common password', { INITIAL_ADMIN_PASSWORD: 'Password1234' }, 'INITIAL_ADMIN_PASSWORD'],
    ];

    it.each(cases)('fails with a ConfigError naming the variable when %s', (_, env, variable) => {
      const error = configErrorFor(env);
      expect(error.name).toBe('ConfigError');
      expect(error.message).toMatch(/^Invalid configuration:\n/);
      expect(error.message).toMatch(new RegExp(`^  ${variable}: \\S`, 'm'));
    });

    it('says what is wrong with the variable', () => {
      expect(configErrorFor({ APPROVAL_FLOW: 'maybe' }).message).toBe('Invalid configuration:\n  APPROVAL_FLOW: must be true or false');
      expect(configErrorFor({ EVENT_STORE: 'eventstoredb' }).message).toBe(
        'Invalid configuration:\n  EVENTSTOREDB_URL: required when EVENT_STORE=eventstoredb',
      );
      expect(configErrorFor({ DATABASE_URL: 'postgres://db.example.com/il', TOKEN_SIGNING_KEY: '{}' }).message).toBe(
        'Invalid configuration:\n  SECRET_KEY: required when DATABASE_URL is set (only embedded mode generates one)',
      );
      expect(configErrorFor({ DATABASE_URL: 'postgres://db.example.com/il', SECRET_KEY }).message).toBe(
        'Invalid configuration:\n  TOKEN_SIGNING_KEY: required when DATABASE_URL is set, the same on every replica (generate one with: ' +
          'npm run -s keygen)',
      );
    });

    it('says why an initial admin password is refused', () => {
      expect(configErrorFor({ INITIAL_ADMIN_PASSWORD: 'short-one' }).message).toBe(
        'Invalid configuration:\n  INITIAL_ADMIN_PASSWORD: must be at least 12 characters',
      );
      expect(configErrorFor({ INITIAL_ADMIN_PASSWORD: 'password1234' }).message).toBe(
        'Invalid configuration:\n  INITIAL_ADMIN_PASSWORD: is one of the most common passwords (it appears in lists of leaked ' +
          'passwords); choose another, such as a few random words',
      );
    });

    it('hashes passwords at cost 17 unless PASSWORD_HASH_COST says 14 to 20, and says why another is refused', () => {
      expect(loadConfig({}).PASSWORD_HASH_COST).toBe(17);
      expect(loadConfig({ PASSWORD_HASH_COST: '14' }).PASSWORD_HASH_COST).toBe(14);
      expect(loadConfig({ PASSWORD_HASH_COST: '20' }).PASSWORD_HASH_COST).toBe(20);
      const range = "must be from 14 (16 MiB a hash) to 20 (1 GiB); the default 17 is OWASP's minimum";
      expect(configErrorFor({ PASSWORD_HASH_COST: '13' }).message).toBe(`Invalid configuration:\n  PASSWORD_HASH_COST: ${range}`);
      expect(configErrorFor({ PASSWORD_HASH_COST: '21' }).message).toBe(`Invalid configuration:\n  PASSWORD_HASH_COST: ${range}`);
      expect(configErrorFor({ PASSWORD_HASH_COST: 'high' }).message).toBe(
        'Invalid configuration:\n  PASSWORD_HASH_COST: must be a whole number',
      );
    });

    it('names the TRUSTED_PROXIES entry it cannot read', () => {
      expect(configErrorFor({ TRUSTED_PROXIES: '10.0.0.1, proxy.internal' }).message).toBe(
        'Invalid configuration:\n  TRUSTED_PROXIES: "proxy.internal" is not an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or one ' +
          'of loopback, linklocal, uniquelocal',
      );
    });

    it('names every bad variable in one error', () => {
      const { message } = configErrorFor({ PORT: 'eighty', LOG_LEVEL: 'verbose', APPROVAL_FLOW: 'maybe' });
      expect(
        message
          .split('\n')
          .slice(1)
          .map((line) => line.trim().split(':')[0])
          .sort(),
      ).toEqual(['APPROVAL_FLOW', 'LOG_LEVEL', 'PORT']);
    });
  });
});
