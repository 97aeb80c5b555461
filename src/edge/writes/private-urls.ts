import { allowedRanges, hasPrivateAddressLiteral } from '../../auth/sso/private-addresses.js';
import { unprocessable } from '../../errors.js';

/**
 * The save-time half of the outgoing-address rule (docs/contract.md §9, §11): a URL written as a
 * private, loopback or link-local address literal is refused at once (422 naming the field) unless
 * the operator allows its range; a host name is checked at each delivery, where it resolves.
 */
export function privateUrlCheck(allowed: readonly string[]): (url: string | undefined, field: string) => void {
  const inAllowedRange = allowedRanges(allowed);
  return (url, field) => {
    if (url === undefined || !hasPrivateAddressLiteral(url) || inAllowedRange(new URL(url).hostname)) return;
    const message = 'is a private, loopback or link-local address; an operator may allow its range (WEBHOOK_ALLOWED_PRIVATE_RANGES)';
    throw unprocessable(`${field} ${message}`, [{ field, message }]);
  };
}
