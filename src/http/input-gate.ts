import type { FastifyInstance } from 'fastify';
import { checkJsonDepth, checkJsonValue, checkQueryParameters } from '../input-gate.js';

/**
 * Puts every REST and GraphQL-over-HTTP request through the input gate (src/input-gate.ts): JSON
 * bodies are depth-checked before they are parsed (as Fastify parses them: prototype poisoning
 * refused) and their strings after; every query parameter's text is checked as the request arrives.
 */
export function registerInputGate(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      checkJsonDepth(body as string, 'body');
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    void parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) {
        done(error, undefined);
        return;
      }
      try {
        checkJsonValue(value, '');
        done(null, value);
      } catch (refused) {
        done(refused as Error, undefined);
      }
    });
  });
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkQueryParameters(request.query);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
