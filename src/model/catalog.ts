import type { EntityDeclaration } from './entity.js';
import { executorEntity } from './executor.js';
import { integrationEntity } from './integration.js';
import { resourceEntity } from './resource.js';
import { secretEntity } from './secret.js';
import { sourceCodeVersionEntity } from './source-code-version.js';
import { sourceCodeEntity } from './source-code.js';
import { storageEntity } from './storage.js';
import { teamEntity } from './team.js';
import { templateEntity } from './template.js';
import { workspaceEntity } from './workspace.js';
import { webhookEntity } from './webhook.js';

/** Every declared entity: the nine catalog kinds, teams and webhooks. */
export const DECLARED_ENTITIES: readonly EntityDeclaration[] = [
  templateEntity,
  integrationEntity,
  secretEntity,
  workspaceEntity,
  sourceCodeEntity,
  sourceCodeVersionEntity,
  storageEntity,
  executorEntity,
  resourceEntity,
  teamEntity,
  webhookEntity,
];

const BY_KIND = new Map(DECLARED_ENTITIES.map((entity) => [entity.kind, entity]));

/** The declaration of a kind (`template` → templates), or undefined for a kind that has none. */
export const declarationOf = (kind: string): EntityDeclaration | undefined => BY_KIND.get(kind);
