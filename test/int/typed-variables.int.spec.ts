import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;
interface Problem {
  readonly status: number;
  readonly detail: string;
  readonly errors: { field: string; message: string }[];
}

/** The declarations every test requests against: each type, a rule of each kind, a sensitive one. */
const DECLARED = [
  { name: 'region', type: 'string', required: true, description: 'Where it runs', validation: { regex: '[a-z]{2}-[a-z]+-\\d' } },
  { name: 'instance_count', type: 'number', default: 1, validation: { min: 1, max: 10 } },
  { name: 'public', type: 'bool', default: false },
  { name: 'zones', type: 'list', validation: { min: 1, message: 'name at least one zone' } },
  { name: 'tags', type: 'map', default: {} },
  { name: 'admin_password', type: 'string', required: true, sensitive: true, validation: { min: 12 } },
  { name: 'size', type: 'enum', default: 'small', validation: { values: ['small', 'medium', 'large'] } },
];

/**
 * Typed variables (docs/contract.md §2): a version declares its variables with types, defaults and
 * rules; a resource's variables are checked against them on create and update, over REST and the
 * GraphQL mutations alike (the same write operations), with a 422 naming each variable.
 */
for (const target of databaseTargets()) {
  describe(`typed variables on ${target.name}`, () => {
    let h: HttpHarness;
    let developer: string;
    let templateId: string;
    let versionId: string;
    let sourceCodeId: string;
    let seq = 0;

    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const post = (url: string, payload: Json, token?: string) =>
      h.inject({ method: 'POST', url, payload, ...(token ? { headers: as(token) } : {}) });
    const problem = (response: LightMyRequestResponse, status: number): Problem => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json<Problem>();
    };
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
    const ok = <T = Json>(response: LightMyRequestResponse, status = 200): T => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json<T>();
    };
    const good = () => [
      { name: 'region', value: 'eu-west-1' },
      { name: 'zones', value: ['a'] },
      { name: 'admin_password', value: 'correct-horse-battery', sensitive: true },
    ];
    const request = (variables: unknown, overrides: Json = {}) =>
      post('/api/resources', { name: `typed-${++seq}`, templateId, sourceCodeVersionId: versionId, variables, ...overrides }, developer);

    beforeAll(async () => {
      h = await openHttpApp(target);
      developer = await h.serviceAccount('typed-developer', ['default']);
      templateId = ok<{ id: string }>(await post('/api/templates', { name: 'Typed', template: 'typed' }), 201).id;
      sourceCodeId = ok<{ id: string }>(
        await post('/api/source_codes', { sourceCodeUrl: 'https://github.com/acme/typed', sourceCodeProvider: 'git_public' }),
        201,
      ).id;
      const version = ok<{ id: string; variables: Json[] }>(
        await post('/api/source_code_versions', {
          templateId,
          sourceCodeId,
          sourceCodeFolder: 'modules/typed',
          sourceCodeVersion: 'v1.0.0',
          variables: DECLARED,
        }),
        201,
      );
      versionId = version.id;
    }, 60_000);
    afterAll(() => h.close());

    it('stores declarations with their defaults filled in and rules kept', async () => {
      const version = ok<{ variables: Json[] }>(await h.inject({ method: 'GET', url: `/api/source_code_versions/${versionId}` }));
      expect(version.variables[0]).toEqual({
        name: 'region',
        type: 'string',
        required: true,
        default: null,
        description: 'Where it runs',
        sensitive: false,
        validation: { regex: '[a-z]{2}-[a-z]+-\\d' },
      });
      expect(version.variables[4]).toEqual({ name: 'tags', type: 'map', required: false, default: {}, description: '', sensitive: false });
    });

    it('refuses declarations with an unknown type, a bad or explosive regex, an inverted range or a default that breaks them', async () => {
      const refused = problem(
        await post('/api/source_code_versions', {
          templateId,
          sourceCodeId,
          sourceCodeFolder: 'modules/bad',
          sourceCodeVersion: 'v1.0.0',
          variables: [
            { name: 'a', type: 'list(string)' },
            { name: 'b', validation: { regex: '([a-z' } },
            { name: 'c', validation: { regex: '(a|a)*b' } },
            { name: 'd', type: 'number', validation: { min: 5, max: 1 } },
            { name: 'e', type: 'number', default: 'three' },
            { name: 'f', type: 'number', validation: { regex: '\\d+' } },
            { name: 'g', type: 'number', default: 0, validation: { min: 1 } },
            { name: 'h', type: 'enum' },
            { name: 'i', validation: { values: ['small'] } },
            { name: 'j', type: 'enum', validation: { values: ['small', 'small'] } },
            { name: 'k', type: 'enum', default: 'huge', validation: { values: ['small', 'large'] } },
          ],
        }),
        400,
      );
      expect(refused.errors.map((e) => e.field)).toEqual([
        'variables[0].type',
        'variables[1].validation.regex',
        'variables[2].validation.regex',
        'variables[3].validation.max',
        'variables[4].default',
        'variables[5].validation.regex',
        'variables[6].default',
        'variables[7].validation.values',
        'variables[8].validation.values',
        'variables[9].validation.values',
        'variables[10].default',
      ]);
      expect(refused.errors[0]?.message).toBe('must be one of string, number, bool, list, map, enum');
      expect(refused.errors.slice(7).map((e) => e.message)).toEqual([
        'an enum variable must list its values',
        'applies to enum variables only',
        'must not repeat a value',
        'the default must be one of small, large',
      ]);
      expect(refused.errors[2]?.message).toMatch(/^(may take super-linear time to match|is too complex to prove safe)/);
      expect(refused.errors[4]?.message).toBe('the default must be a number');
      expect(refused.errors[6]?.message).toBe('the default must be at least 1');
    });

    it('takes values that fit their declarations, and leaves out variables with defaults', async () => {
      const created = ok<{ variables: Json[] }>(await request(good()), 201);
      expect(created.variables).toEqual([
        { name: 'region', value: 'eu-west-1', sensitive: false },
        { name: 'zones', value: ['a'], sensitive: false },
        { name: 'admin_password', value: '********', sensitive: true },
      ]);
    });

    it('answers 422 naming every variable and the reason, over REST', async () => {
      const refused = problem(
        await request([
          { name: 'region', value: 'Europe' },
          { name: 'instance_count', value: 11 },
          { name: 'public', value: 'yes' },
          { name: 'zones', value: [] },
          { name: 'tags', value: ['x'] },
          { name: 'admin_password', value: 'short', sensitive: true },
          { name: 'colour', value: 'blue' },
          { name: 'size', value: 'huge' },
        ]),
        422,
      );
      expect(refused.detail).toBe(
        'invalid variables for source code version modules/typed:v1.0.0: region, instance_count, public, zones, tags, admin_password, ' +
          'colour, size',
      );
      expect(refused.errors).toEqual([
        { field: 'variables.region', message: 'must match [a-z]{2}-[a-z]+-\\d' },
        { field: 'variables.instance_count', message: 'must be at most 10' },
        { field: 'variables.public', message: 'must be true or false' },
        { field: 'variables.zones', message: 'name at least one zone' },
        { field: 'variables.tags', message: 'must be a map (a JSON object)' },
        { field: 'variables.admin_password', message: 'must be at least 12 characters' },
        { field: 'variables.colour', message: 'is not a variable of source code version modules/typed:v1.0.0' },
        { field: 'variables.size', message: 'must be one of small, medium, large' },
      ]);
      // The refused value of a sensitive variable is never echoed.
      expect(JSON.stringify(refused)).not.toContain('short');
    });

    it('names required variables left out, and a sensitive one sent in the clear', async () => {
      const refused = problem(
        await request([
          { name: 'zones', value: ['a'] },
          { name: 'admin_password', value: 'correct-horse-battery' },
        ]),
        422,
      );
      expect(refused.errors).toEqual([
        { field: 'variables.admin_password', message: 'is declared sensitive: send it with sensitive: true' },
        { field: 'variables.region', message: 'is required' },
      ]);
      const nulls = problem(await request([...good().filter((v) => v.name !== 'region'), { name: 'region', value: null }]), 422);
      expect(nulls.errors).toEqual([{ field: 'variables.region', message: 'is required' }]);
    });

    it('checks a change of variables or of version, and leaves other changes of older resources alone', async () => {
      const created = ok<{ id: string; variables: Json[] }>(await request(good()), 201);
      const patch = (payload: Json) => h.inject({ method: 'PATCH', url: `/api/resources/${created.id}`, payload, headers: as(developer) });
      // The masked sensitive value sent back keeps the stored one, which is what gets checked.
      const kept = ok<{ variables: Json[] }>(await patch({ variables: [...created.variables, { name: 'instance_count', value: 3 }] }));
      expect(kept.variables.map((v) => v.name)).toEqual(['region', 'zones', 'admin_password', 'instance_count']);
      expect(problem(await patch({ variables: [{ name: 'region', value: 'eu-west-1' }] }), 422).errors.map((e) => e.field)).toEqual([
        'variables.admin_password',
      ]);
      // A version declaring nothing: every variable is unknown to it.
      const bare = ok<{ id: string }>(
        await post('/api/source_code_versions', {
          templateId,
          sourceCodeId,
          sourceCodeFolder: 'modules/bare',
          sourceCodeVersion: 'v1.0.0',
        }),
        201,
      ).id;
      const moved = problem(await patch({ sourceCodeVersionId: bare }), 422);
      expect(moved.errors[0]).toEqual({
        field: 'variables.region',
        message: 'is not a variable of source code version modules/bare:v1.0.0',
      });
      expect(ok<{ description: string }>(await patch({ description: 'unrelated change' })).description).toBe('unrelated change');
    });

    it('refuses the same values with the same errors through the GraphQL mutations', async () => {
      const gql = async (query: string, variables: Json) =>
        ok<{ data: Json | null; errors?: { message: string; extensions: { code: string; errors?: unknown } }[] }>(
          await h.app.inject({
            method: 'POST',
            url: '/api/graphql',
            headers: { ...as(developer), 'content-type': 'application/json' },
            payload: { query, variables },
          }),
        );
      const mutation = 'mutation ($input: ResourceCreateInput!) { createResource(input: $input) { id name variables } }';
      const input = { name: `typed-gql-${++seq}`, templateId, sourceCodeVersionId: versionId };
      const refused = await gql(mutation, {
        input: {
          ...input,
          variables: [
            { name: 'region', value: 42 },
            { name: 'zones', value: ['a'] },
            { name: 'admin_password', value: 'correct-horse-battery', sensitive: true },
            { name: 'x', value: 1 },
          ],
        },
      });
      expect(refused.errors?.[0]?.extensions).toMatchObject({
        code: 'INVALID_VARIABLES',
        errors: [
          { field: 'variables.region', message: 'must be a string' },
          { field: 'variables.x', message: 'is not a variable of source code version modules/typed:v1.0.0' },
        ],
      });
      const accepted = await gql(mutation, { input: { ...input, variables: good() } });
      expect(accepted.errors).toBeUndefined();
      expect((accepted.data?.createResource as { name: string }).name).toBe(input.name);
    });
  });
}
