import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../edge/authorize.js';
import { setCorrelationId } from '../edge/context.js';
import {
  claimIdempotencyKey,
  committedEntityOf,
  keepIdempotentAnswer,
  parseIdempotencyKey,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  type KeptAnswer,
} from '../edge/idempotency.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The headers of an answer a replay repeats. */
const KEPT_HEADERS = ['content-type', 'etag', 'location', 'x-position', 'content-range'] as const;
/** One claim in this many also prunes expired keys (an indexed delete). */
const PRUNE_EVERY = 500;

interface Claimed {
  readonly caller: string;
  readonly key: string;
}

/**
 * `Idempotency-Key` on every REST write (docs/contract.md §3 and docs/api/rest.md "Retries"): the first request
 * claims the key and its answer is kept; a retry with the same key and request gets that answer again
 * (`Idempotent-Replayed: true`); the same key with another request is a 422. Answers that carry a
 * secret (a token, a session cookie) are never kept: a retry of such a request is a 409 saying so.
 */
export function registerIdempotency(api: FastifyInstance, services: Services): void {
  const claims = new WeakMap<FastifyRequest, Claimed>();
  let sincePrune = 0;

  /** Claims the request's key, or answers it from the kept answer (the reply is then sent). */
  const claimOrReplay = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return;
    const caller = principalOf(request)?.userId;
    if (caller === undefined) {
      throw new AppError('VALIDATION', 'Idempotency-Key needs a signed-in caller: this request signs in, retry it as it is', {
        errors: [{ field: 'Idempotency-Key', message: 'not accepted on sign-in requests' }],
      });
    }
    const now = services.now();
    if (++sincePrune >= PRUNE_EVERY) {
      sincePrune = 0;
      await pruneIdempotencyKeys(services.pool, now);
    }
    const path = request.url.split('?')[0] ?? request.url;
    const claim = await claimIdempotencyKey(services.pool, { caller, key, method: request.method, path, body: request.body ?? null }, now);
    switch (claim.kind) {
      case 'claimed':
        claims.set(request, { caller, key });
        setCorrelationId(request, claim.correlationId);
        return;
      case 'answered':
        return replay(reply, claim.answer);
      case 'in_progress':
        void reply.header('Retry-After', '5');
        throw new AppError('IDEMPOTENCY_IN_FLIGHT', 'a request with this Idempotency-Key is still running; retry in a few seconds');
      case 'interrupted': {
        // The first request's process ended before it answered: did its command commit?
        const head = await services.store.lastPosition();
        if (head !== undefined) await services.waitFor(['audit_log'], head);
        const committed = await committedEntityOf(services.pool, claim.correlationId, caller);
        if (!committed) {
          await releaseIdempotencyKey(services.pool, caller, key, now);
          claims.set(request, { caller, key });
          setCorrelationId(request, claim.correlationId);
          return;
        }
        const answer = await answerFromEntity(request, committed);
        await keepIdempotentAnswer(services.pool, caller, key, answer);
        return replay(reply, answer);
      }
    }
  };

  /** Keeps the answer of a claimed request (or releases its key after a server error). */
  const keep = async (reply: FastifyReply, payload: unknown, claimed: Claimed): Promise<void> => {
    if (reply.statusCode >= 500) {
      await releaseIdempotencyKey(services.pool, claimed.caller, claimed.key);
      return;
    }
    const cacheControl = String(reply.getHeader('cache-control') ?? '');
    const secret = cacheControl.includes('no-store') || reply.getHeader('set-cookie') !== undefined;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body = secret ? null : typeof payload === 'string' ? payload : payload === null || payload === undefined ? '' : null;
    await keepIdempotentAnswer(services.pool, claimed.caller, claimed.key, { status: reply.statusCode, headers, body });
  };

  // Callback hooks: most requests carry no key and pass without a promise.
  api.addHook('preHandler', (request, reply, done) => {
    if (!WRITES.has(request.method) || request.headers['idempotency-key'] === undefined) return done();
    claimOrReplay(request, reply).then(
      () => {
        if (!reply.sent) done();
      },
      (error: unknown) => done(error as Error),
    );
  });
  api.addHook('onSend', (request, reply, payload, done) => {
    const claimed = claims.get(request);
    if (!claimed) return done(null, payload);
    claims.delete(request);
    keep(reply, payload, claimed).then(
      () => done(null, payload),
      (error: unknown) => done(error as Error),
    );
  });
}

/** Sends a kept answer again; one that carried a secret is a 409 instead. */
function replay(reply: FastifyReply, answer: KeptAnswer): FastifyReply {
  if (answer.body === null) {
    throw new AppError(
      'IDEMPOTENT_ANSWER_WITHHELD',
      'the request with this Idempotency-Key succeeded, but its answer carried a secret, which is never kept: look the result up instead',
      {
        details: { originalStatus: answer.status },
      },
    );
  }
  void reply.status(answer.status).header('Idempotent-Replayed', 'true');
  for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
  return reply.send(answer.status === 204 ? undefined : answer.body);
}

/**
 * The answer an interrupted request would have given, from the entity its committed command
 * changed: 201 with Location for a create, 204 for a delete, 200 with the entity otherwise.
 */
async function answerFromEntity(
  request: FastifyRequest,
  committed: { entityType: string; entityId: string; deleted: boolean },
): Promise<KeptAnswer> {
  if (committed.deleted) return { status: 204, headers: {}, body: '' };
  const url = `/api/${committed.entityType}s/${committed.entityId}`;
  const read = await request.server.inject({ method: 'GET', url, headers: { authorization: request.headers.authorization ?? '' } });
  const created = request.method === 'POST' && !(request.url.split('?')[0] ?? '').includes(committed.entityId);
  const headers: Record<string, string> = { 'content-type': String(read.headers['content-type'] ?? 'application/json') };
  if (read.headers.etag !== undefined) headers.etag = read.headers.etag;
  if (created) headers.location = url;
  return { status: read.statusCode === 200 ? (created ? 201 : 200) : read.statusCode, headers, body: read.body };
}
