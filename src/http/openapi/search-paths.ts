import type { OpenAPIV3_1 } from 'openapi-types';
import { MATCHES, SEARCHABLE_KINDS } from '../../read/search.js';
import { SEARCH_PAGE_SIZE } from '../../edge/search.js';
import { header, jsonResponse, problems, type Paths } from './components.js';

const hit: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['kind', 'plural', 'id', 'name', 'description', 'labels', 'match', 'score', 'href', 'link'],
  properties: {
    kind: { type: 'string', enum: [...SEARCHABLE_KINDS], description: 'The kind, as permissions name it.' },
    plural: { type: 'string', description: 'Its REST collection (`templates`, `source_codes`, …).' },
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', description: 'Its name, or its identifier for source codes and their versions.' },
    description: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' } },
    match: { type: 'string', enum: [...MATCHES], description: 'Where the text matched, best first.' },
    score: { type: 'integer', description: 'The rank of `match`: hits come best first, then by name.' },
    href: { type: 'string', description: 'The entity in this API, e.g. `/api/templates/{id}`.' },
    link: { type: 'string', description: "The entity's page in the web UI." },
  },
};

/** `GET /api/search`: one search across every kind the caller may read. */
export function searchPaths(): Paths {
  return {
    '/api/search': {
      get: {
        tags: ['Search'],
        operationId: 'search',
        summary: 'Search every kind',
        description:
          'The entities of every kind you may read (or of `kinds`) whose name, identifier, searched fields, labels, description or id ' +
          'hold `q` (case-insensitive), best first: an id, the whole name, its start, any part of it, another searched field, a ' +
          'label, the description. Each hit passes the same permissions as its own list.',
        parameters: [
          {
            name: 'q',
            in: 'query',
            required: true,
            description: 'The text, e.g. `payments`.',
            schema: { type: 'string', minLength: 1, maxLength: 200 },
          },
          {
            name: 'kinds',
            in: 'query',
            required: false,
            description: `JSON array of kinds (${SEARCHABLE_KINDS.join(', ')}), e.g. \`["template","resource"]\`; every kind when absent.`,
            schema: { type: 'string' },
          },
          {
            name: 'range',
            in: 'query',
            required: false,
            description: `JSON \`[offset, limit]\`; default \`[0, ${SEARCH_PAGE_SIZE}]\`, limit at most MAX_PAGE_SIZE.`,
            schema: { type: 'string' },
            example: `[0,${SEARCH_PAGE_SIZE}]`,
          },
        ],
        responses: {
          '200': jsonResponse('The page of hits.', { type: 'array', items: hit }, { 'Content-Range': header('ContentRange') }),
          ...problems(400, 401, 503),
        },
      },
    },
  };
}
