import { describe, expect, it } from 'vitest';
import { maskedForms, maskSecrets, runActionOf, truncationMarker, utf8Prefix } from '../../src/model/run.js';

describe('run log masking', () => {
  it('masks every occurrence, the longest secret first, and leaves values too short to matter', () => {
    const forms = maskedForms(['abcd', 'abcdefgh', 'xy', 42, 12345]);
    expect(forms).toEqual(expect.arrayContaining(['abcdefgh', '12345', 'abcd']));
    expect(forms.indexOf('abcdefgh')).toBeLessThan(forms.indexOf('abcd'));
    expect(forms.some((form) => form.includes('xy'))).toBe(false);
    expect(maskSecrets('k=abcdefgh j=abcd i=xy n=12345', forms)).toBe('k=******** j=******** i=xy n=********');
  });

  it('masks the lines of a multi-line secret and the values inside a JSON key file', () => {
    const key = JSON.stringify({ type: 'service_account', private_key: '-----BEGIN KEY-----\nMIIEvQIBADANBg\n-----END KEY-----\n' });
    const forms = maskedForms([key, { nested: ['deep-secret-1'] }]);
    expect(maskSecrets('line MIIEvQIBADANBg here', forms)).toBe('line ******** here');
    expect(maskSecrets('value deep-secret-1', forms)).toBe('value ********');
  });

  it('masks a secret printed encoded: base64 at any alignment (also URL-safe), hex, URL- and JSON-escaped, upper- and lower-cased', () => {
    const secret = 's3cr3t+P@ss/wörd "q"';
    const forms = maskedForms([secret]);
    const printed = [
      Buffer.from(secret).toString('base64'),
      Buffer.from(`user:${secret}`).toString('base64'),
      Buffer.from(`ab${secret}`).toString('base64url'),
      Buffer.from(secret).toString('hex'),
      Buffer.from(secret).toString('hex').toUpperCase(),
      encodeURIComponent(secret),
      JSON.stringify({ password: secret }),
      secret.toUpperCase(),
      secret.toLowerCase(),
    ];
    for (const text of printed) {
      const masked = maskSecrets(`before ${text} after`, forms);
      expect(masked, text).toContain('********');
      // What is left of the encoded secret is at most the few characters it shares with its neighbours.
      expect(masked.length, text).toBeLessThan(`before ${text} after`.length);
    }
    expect(maskSecrets(`Authorization: Basic ${Buffer.from(`user:${secret}`).toString('base64')}`, forms)).toMatch(
      /^Authorization: Basic .{0,8}\*{8}.{0,4}$/,
    );
  });

  it('cuts UTF-8 text at a byte bound without splitting a character', () => {
    expect(utf8Prefix('aé', 2)).toBe('a');
    expect(utf8Prefix('aé', 3)).toBe('aé');
    expect(utf8Prefix('€€', 4)).toBe('€');
    expect(truncationMarker(10)).toContain('reached 10 bytes');
  });

  it('names a run by the state it was queued in', () => {
    expect([runActionOf('provision'), runActionOf('provisioned'), runActionOf('destroy')]).toEqual(['apply', 'apply', 'destroy']);
  });
});
