import { CATALOG_ENTITIES } from './catalog-kinds.js';
import type { EntityDeclaration } from './entity.js';
import { teamEntity } from './team.js';
import { webhookEntity } from './webhook.js';

/**
 * Every declared entity: the nine catalog kinds, teams and webhooks. Every registry of the service
 * (events, write models, projections, read tables, lists, REST routes, GraphQL types and mutations,
 * OpenAPI, streams, referrers) is derived from this list (docs/adding-a-kind.md).
 */
const DECLARED = [...CATALOG_ENTITIES, teamEntity, webhookEntity] as const;

/** A declared entity's declaration, as its literal type. */
export type DeclaredEntity = (typeof DECLARED)[number];
/** The kind of a declared entity (`template`, …, `team`, `webhook`). */
export type DeclaredKind = (typeof DECLARED)[number]['kind'];
/** The name of a declared entity, its GraphQL type (`Template`, …, `Team`, `Webhook`). */
export type DeclaredName = (typeof DECLARED)[number]['name'];

/** The declared entities, as the registries walk them. */
export const DECLARED_ENTITIES: readonly EntityDeclaration[] = DECLARED;

const BY_KIND = new Map(DECLARED_ENTITIES.map((entity) => [entity.kind, entity]));

/** The declaration of a kind (`template` → templates), or undefined for a kind that has none. */
export const declarationOf = (kind: string): EntityDeclaration | undefined => BY_KIND.get(kind);
