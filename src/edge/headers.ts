import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { PositionWaiter } from '../projections/waiter.js';

/**
 * `If-Match: <revision>` (also `"3"` and `W/"3"`, as ETags are sent back) → the stream revision the
 * client expects. Clients see 1-based revisions; streams count from 0. `*` means any.
 */
export function parseIfMatch(request: FastifyRequest): bigint | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  const revision = match?.[1] === undefined ? NaN : Number(match[1]);
  if (!Number.isSafeInteger(revision) || revision < 1) {
    throw new AppError('VALIDATION', 'If-Match must be a revision number such as 3 or "3"', {
      errors: [{ field: 'If-Match', message: 'must be a positive revision number' }],
    });
  }
  return BigInt(revision - 1);
}

/**
 * `X-Min-Position: <position>` on a read waits (bounded) until the read model has reached it. A
 * position beyond the event log's head is no write's answer: 400 naming the head, not a 5 s park.
 */
export async function awaitMinPosition(
  request: FastifyRequest,
  services: { waitFor: PositionWaiter },
  projections: readonly string[],
): Promise<void> {
  const header = request.headers['x-min-position'];
  if (header === undefined) return;
  if (typeof header !== 'string' || !/^\d{1,19}$/.test(header.trim())) {
    throw new AppError('VALIDATION', 'X-Min-Position must be a position returned in an X-Position header', {
      errors: [{ field: 'X-Min-Position', message: 'must be a non-negative integer' }],
    });
  }
  const position = BigInt(header.trim());
  await services.waitFor(projections, position, {
    beyondHead: (head) =>
      new AppError(
        'POSITION_AHEAD',
        `X-Min-Position ${position} is beyond the newest position of the event log (${head}); send a position an X-Position header ` +
          `returned`,
        {
          errors: [{ field: 'X-Min-Position', message: `must not be beyond the newest position, ${head}` }],
          details: { head: String(head) },
        },
      ),
  });
}
