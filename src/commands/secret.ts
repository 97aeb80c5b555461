import { secretEventTypes, type SecretFields } from '../events/secret.js';
import { secretEntity } from '../model/secret.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/**
 * Secrets: the declared rules (unique name, fixed provider, integration reference), and every
 * provider but `custom` needs an integration (whose kind the edge checks, as it needs a read of that stream).
 */
export const secretAggregate = catalogAggregate<SecretFields>({
  ...declaredRules<SecretFields>(secretEntity, (f) =>
    f.secretProvider !== 'custom' && f.integrationId === null
      ? [
          {
            field: 'integrationId',
            message: `integrationId is required for ${f.secretProvider} secrets (only custom secrets may go without)`,
          },
        ]
      : [],
  ),
  events: secretEventTypes,
});
