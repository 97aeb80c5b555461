import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, as the Standard Webhooks specification has them: the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, the signature HMAC-SHA256 of it, in base64, sent as
 * `webhook-signature: v1,<signature>`. While a key is being rotated the header carries one
 * signature per key, space-separated: a receiver accepts the delivery when any one verifies.
 */

/** How far a receiver should let a delivery's timestamp be from its own clock (replay window). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The prefix of a Standard Webhooks secret: what follows is the key's bytes in base64. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a webhook secret: a `whsec_…` secret is the Standard Webhooks form, its key the
 * bytes the base64 after the prefix encodes (what the `standardwebhooks` libraries take); any other
 * secret (webhooks made before that form was read) signs with its text's bytes.
 */
export const signingKeyOf = (secret: string): Buffer =>
  secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');

/** The signature of one delivery with one secret. */
export const signatureOf = (id: string, timestamp: number, body: string, secret: string): string =>
  createHmac('sha256', signingKeyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');

/** The three headers of a signed delivery, signed with every secret given (newest first). */
export function signatureHeaders(id: string, timestamp: number, body: string, keys: readonly string[]): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((key) => `v1,${signatureOf(id, timestamp, body, key)}`).join(' '),
  };
}

/**
 * What a receiver does (the tests' receivers do it, and docs/api/rest.md shows it with openssl):
 * the timestamp within the tolerance of `now`, and one `v1` signature equal, compared in constant time.
 */
export function verifySignature(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
  key: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || !Number.isSafeInteger(timestamp) || typeof signatures !== 'string') return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(id, timestamp, body, key));
  return signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',', 2);
    const given = Buffer.from(signature);
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
