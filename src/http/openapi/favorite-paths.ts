import type { OpenAPIV3_1 } from 'openapi-types';
import { DECLARED_ENTITIES } from '../../model/catalog.js';
import { jsonResponse, problems, type Paths } from './components.js';

const KINDS = DECLARED_ENTITIES.map((entity) => entity.kind);

const favorite: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['entityType', 'plural', 'entityId', 'name', 'createdAt', 'href', 'link'],
  properties: {
    entityType: { type: 'string', enum: KINDS, description: 'The kind, as permissions name it.' },
    plural: { type: 'string', description: 'Its REST collection (`templates`, `source_codes`, …).' },
    entityId: { type: 'string', format: 'uuid' },
    name: { type: 'string', description: 'Its name, or its identifier for source codes and their versions.' },
    createdAt: { type: 'string', format: 'date-time', description: 'When it was starred.' },
    href: { type: 'string', description: 'The entity in this API.' },
    link: { type: 'string', description: "The entity's page in the web UI." },
  },
};

const target: OpenAPIV3_1.ParameterObject[] = [
  { name: 'entityType', in: 'path', required: true, schema: { type: 'string', enum: KINDS } },
  { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
];

/** `/api/favorites`: the caller's favorites, and starring or unstarring one entity. */
export function favoritePaths(): Paths {
  return {
    '/api/favorites': {
      get: {
        tags: ['Favorites'],
        operationId: 'list_favorites',
        summary: 'Your favorites',
        description: 'The entities you starred, newest first: only those that still exist and that you may still read.',
        responses: { '200': jsonResponse('Your favorites.', { type: 'array', items: favorite }), ...problems(401, 503) },
      },
    },
    '/api/favorites/{entityType}/{id}': {
      parameters: target,
      put: {
        tags: ['Favorites'],
        operationId: 'add_favorite',
        summary: 'Star an entity',
        description: 'Adds it to your favorites (again: nothing changes). 404 for one you may not read; 422 past 1000 favorites.',
        responses: { '204': { description: 'Starred.' }, ...problems(400, 401, 403, 404, 422, 503) },
      },
      delete: {
        tags: ['Favorites'],
        operationId: 'remove_favorite',
        summary: 'Unstar an entity',
        description: 'Takes it out of your favorites (not starred: nothing changes).',
        responses: { '204': { description: 'Unstarred.' }, ...problems(400, 401, 503) },
      },
    },
  };
}
