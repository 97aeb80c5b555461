// The layering of src/ (docs/architecture.md), kept by lint: each layer may import only the layers
// below it. A back edge fails `npm run lint`; test/unit/layers.unit.spec.ts proves every rule fires.
//
//   kernel (src/*.ts: errors, log, config, validation, …) → model → storage → events → commands
//   → projections → read → auth → delivery → services.ts → edge → http | graphql | cli → main.ts
//
// Shipped migrations are frozen: they import nothing outside src/storage/migrations.

/** The layers in order, lowest first: a folder of src/ (or a root file) and what it is. */
export const LAYERS = [
  { name: 'model', files: ['src/model/**'], what: 'what entities, permissions and lifecycles are' },
  { name: 'storage', files: ['src/storage/**'], what: 'the SQL pool, prepared statements, Kysely, migrations' },
  { name: 'events', files: ['src/events/**'], what: 'event definitions, codec, event store adapters' },
  { name: 'commands', files: ['src/commands/**'], what: 'deciders and the command handler' },
  { name: 'projections', files: ['src/projections/**'], what: 'read-model projectors and their runner' },
  { name: 'read', files: ['src/read/**'], what: 'the list engine, list specs and readers' },
  { name: 'auth', files: ['src/auth/**'], what: 'tokens, sign-in, providers, the authenticator' },
  { name: 'delivery', files: ['src/delivery/**'], what: 'what leaves the service from the log: webhooks, notifications' },
  { name: 'services', files: ['src/services.ts'], what: 'the composition of stores, projections and auth' },
  { name: 'edge', files: ['src/edge/**'], what: 'request helpers shared by the HTTP and GraphQL edges' },
  { name: 'http', files: ['src/http/**'], what: 'REST routes and the Fastify app' },
  { name: 'graphql', files: ['src/graphql/**'], what: 'the GraphQL schema, loader and plugin' },
  { name: 'cli', files: ['src/cli/**'], what: 'command-line tools' },
];

/** Import specifier patterns that reach a layer from anywhere in src/. */
const reach = {
  storage: ['**/storage/**'],
  model: ['**/model/**'],
  events: ['**/events/**'],
  commands: ['**/commands/**'],
  projections: ['**/projections/**'],
  read: ['**/read/**'],
  auth: ['**/auth/**'],
  delivery: ['**/delivery/**'],
  services: ['**/services.js'],
  edge: ['**/edge/**'],
  http: ['**/http/**'],
  graphql: ['**/graphql/**'],
  cli: ['**/cli/**'],
  main: ['**/main.js'],
};

/** The edges that are siblings, not layers: which of them one may import. */
const EDGE_EXCEPTIONS = {
  http: ['graphql'], // the Fastify app mounts the GraphQL plugin
};

/** http, graphql and cli are sibling edges at the top: none imports another but for the exceptions. */
const EDGES = ['http', 'graphql', 'cli'];

/** The layers a layer must not import: every layer above it, and sibling edges not excepted. */
export function forbiddenFor(layer) {
  const index = LAYERS.findIndex((l) => l.name === layer);
  const above = LAYERS.slice(index + 1).map((l) => l.name);
  const siblings = EDGES.includes(layer) ? EDGES.filter((name) => name !== layer) : [];
  const allowed = EDGE_EXCEPTIONS[layer] ?? [];
  return [...new Set([...above, ...siblings])].filter((name) => !allowed.includes(name)).concat('main');
}

const rule = (layer, targets) => [
  'error',
  {
    patterns: targets.map((target) => ({
      group: reach[target],
      message: `${layer} must not import ${target}: imports run one way (docs/architecture.md, "Layers").`,
    })),
  },
];

const KERNEL = [
  'src/errors.ts',
  'src/log.ts',
  'src/lru.ts',
  'src/run-pool.ts',
  'src/config.ts',
  'src/validation.ts',
  'src/data-dir-lock.ts',
  'src/metrics.ts',
  'src/spans.ts',
  'src/telemetry.ts',
];

/** The flat-config objects that encode the layering. */
export const layerConfigs = [
  ...LAYERS.map((layer) => ({ files: layer.files, rules: { 'no-restricted-imports': rule(layer.name, forbiddenFor(layer.name)) } })),
  {
    files: KERNEL,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./*/**', './services.js', './main.js'],
              message: 'the kernel (src/*.ts) must not import any layer: it sits below all of them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/storage/migrations/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../**'], message: 'shipped migrations are frozen: they import nothing from live code.' }] },
      ],
    },
  },
];
