import type { FastifyInstance } from 'fastify';
import { secretAggregate } from '../../commands/secret.js';
import { entityInput } from '../../edge/entity-input.js';
import type { SecretFields } from '../../events/secret.js';
import { secretEntity } from '../../model/secret.js';
import { secretListSpec } from '../../read/list-specs/secrets.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { requireIntegrationKind } from './integration-kind.js';

const input = entityInput(secretEntity);

/** Aws and gcp secrets are read from that cloud: their integration is a cloud integration of the same provider. */
const cloudIntegration = (services: Services, provider: SecretFields['secretProvider'], integrationId: string | null | undefined) =>
  provider === 'custom' ? Promise.resolve() : requireIntegrationKind(services, integrationId, { type: 'cloud', provider, users: `${provider} secrets` });

/** REST for secrets (docs/contract.md §2–§3): the catalog kit plus the integration-kind rule. */
export function secretsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    ...declaredSurface(secretEntity, secretAggregate, secretListSpec),
    async parseCreate(body) {
      const data = input.parseCreate(body);
      await cloudIntegration(services, data.secretProvider, data.integrationId);
      return data;
    },
    async parsePatch(body, current: SecretFields) {
      const changes = input.parsePatch(body, current);
      if (changes.integrationId !== current.integrationId) await cloudIntegration(services, current.secretProvider, changes.integrationId);
      return changes;
    },
  });
}
