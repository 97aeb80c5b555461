import type { OpenAPIV3_1 } from 'openapi-types';
import { jsonResponse, param, problems, type Paths } from './components.js';

const startingVariable: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['name', 'type', 'description', 'required', 'sensitive', 'options', 'index', 'value', 'valueFrom'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string', description: '`string`, `number`, `bool`, `list`, `map` or `enum`.' },
    description: { type: 'string' },
    required: { type: 'boolean' },
    sensitive: { type: 'boolean' },
    options: { type: 'array', items: { type: 'string' }, description: "An `enum` variable's choices; empty for other types." },
    index: { type: 'integer', description: "Its place in the version's declaration." },
    value: { description: 'The value a request form starts from: the default, or a parent resource’s output of the same name.' },
    valueFrom: { type: ['string', 'null'], format: 'uuid', description: 'The parent resource that gave `value`; null for the default.' },
    validation: { type: 'object', additionalProperties: true, description: 'The declared rule, when there is one.' },
  },
};

/** `GET /api/source_code_versions/{id}/variables`: a version's variables as a request form starts from them. */
export function versionVariablesPaths(): Paths {
  return {
    '/api/source_code_versions/{id}/variables': {
      parameters: [param('id')],
      get: {
        tags: ['Source code versions'],
        operationId: 'variables_of_source_code_versions',
        summary: "A version's variables, with values from parent resources",
        description: [
          'Each declared variable in order with the value a request form starts from: its default, or the output of the same name',
          "that one of the `parent_resources` reported (the first named wins; an output the parent's version declares sensitive is",
          "never copied). The upstream project's route, same name and parameter. Needs `source_code_version:read`; each parent must",
          'be a resource you may read (422 otherwise).',
        ].join(' '),
        parameters: [
          {
            name: 'parent_resources',
            in: 'query',
            description: 'Resource ids separated by commas (at most 20).',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': jsonResponse('The variables.', { type: 'array', items: startingVariable }),
          ...problems(400, 401, 403, 404, 422, 503),
        },
      },
    },
  };
}
