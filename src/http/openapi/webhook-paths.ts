import type { OpenAPIV3_1 } from 'openapi-types';
import { jsonResponse, param, problems, type Paths } from './components.js';

const delivery: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['state', 'position', 'attempts', 'nextAttemptAt', 'lastError', 'failedEventId', 'delivered', 'lastDeliveredAt'],
  properties: {
    state: {
      type: 'string',
      enum: ['pending', 'active', 'dead'],
      description:
        '`pending` before its first round, `active` while it delivers or waits to retry, `dead` after WEBHOOK_MAX_ATTEMPTS failures at ' +
        'one event (re-drive it with the `redrive` action).',
    },
    position: { type: ['string', 'null'], description: 'The log position of the last event given or passed over.' },
    attempts: { type: 'integer', description: 'Failed attempts at the next event.' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'When the next attempt is due, while retrying.' },
    lastError: { type: ['string', 'null'], description: 'Why the last attempt failed.' },
    failedEventId: { type: ['string', 'null'], format: 'uuid', description: 'The event it is retrying, or dead at.' },
    delivered: { type: 'integer', description: 'Events delivered so far.' },
    lastDeliveredAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

/** `GET /api/webhooks/{id}/delivery` and `GET /api/integrations/{id}/delivery`: how a webhook's or a notification's delivery stands. */
export function webhookPaths(): Paths {
  return {
    '/api/webhooks/{id}/delivery': {
      get: {
        tags: ['Webhooks'],
        operationId: 'get_webhook_delivery',
        summary: "A webhook's delivery state",
        description: 'Where its delivery stands: the last position, retries and the error that stopped it. Needs `webhook:read`.',
        parameters: [param('id')],
        responses: { '200': jsonResponse('The delivery state.', delivery), ...problems(400, 401, 403, 404) },
      },
    },
    '/api/integrations/{id}/delivery': {
      get: {
        tags: ['Integrations'],
        operationId: 'get_integration_delivery',
        summary: "A notification integration's delivery state",
        description:
          'Where its notifications stand: the last position, retries and the last error. A notification that still fails ' +
          'after WEBHOOK_MAX_ATTEMPTS is passed over (it never goes `dead`); `lastError` and `failedEventId` keep it. Needs ' +
          '`integration:write`; 404 for integrations of other types.',
        parameters: [param('id')],
        responses: { '200': jsonResponse('The delivery state.', delivery), ...problems(400, 401, 403, 404) },
      },
    },
  };
}
