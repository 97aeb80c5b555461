import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  effectivePermissions,
  entityLevel,
  levelIncludes,
  type EntityRelation,
  type PermissionLevel,
} from '../../src/model/permissions.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;
type Person = 'outsider' | 'memberA' | 'leadA' | 'grantee' | 'memberB' | 'infra';
type Secret = 'ownedA' | 'ownedB' | 'ownedAGrantedB' | 'unowned';

/**
 * The per-entity rule has two forms (docs/decisions/0014): `entityLevel` in Node, which writes use,
 * and its SQL in src/read/entity-access.ts, which lists, by-id reads and GraphQL use. Every pair of a
 * caller and a secret below is judged by both: the Node rule from the facts the test set up, the SQL
 * rule by what the REST list, the GraphQL list and the permissions view answer.
 */
for (const target of databaseTargets()) {
  describe(`the entity rule in Node and in SQL, on ${target.name}`, () => {
    let h: HttpHarness;
    const tokens = {} as Record<Person, string>;
    const userIds = {} as Record<Person, string>;
    const secrets = {} as Record<Secret, string>;
    const roles: Record<Person, string[]> = {
      outsider: ['default'],
      memberA: ['default'],
      leadA: ['default'],
      grantee: ['default'],
      memberB: ['default'],
      infra: ['infra'],
    };
    // The facts, as the test sets them up: who is in which team, and the grants on each secret.
    const teamRole = (person: Person, team: 'A' | 'B'): 'member' | 'lead' | null =>
      team === 'A' ? (person === 'memberA' ? 'member' : person === 'leadA' ? 'lead' : null) : person === 'memberB' ? 'member' : null;
    const ownerOf: Record<Secret, 'A' | 'B' | null> = { ownedA: 'A', ownedB: 'B', ownedAGrantedB: 'A', unowned: null };
    const grantsOf = (secret: Secret, person: Person): PermissionLevel[] => [
      ...(secret === 'ownedB' && person === 'grantee' ? (['read'] as const) : []),
      ...(secret === 'ownedAGrantedB' && person === 'memberB' ? (['write'] as const) : []),
    ];
    const expected = (person: Person, secret: Secret): PermissionLevel | null => {
      const owner = ownerOf[secret];
      const relation: EntityRelation = {
        owned: owner !== null,
        ownerRole: owner === null ? null : teamRole(person, owner),
        grantLevels: grantsOf(secret, person),
      };
      return entityLevel(effectivePermissions(roles[person], []), 'secret', relation);
    };

    beforeAll(async () => {
      h = await openHttpApp(target);
      for (const person of Object.keys(roles) as Person[]) {
        tokens[person] = await h.serviceAccount(`${person}-${target.name}`, roles[person]);
        userIds[person] = (
          await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${tokens[person]}` } })
        ).json<{ id: string }>().id;
      }
      const team = async (name: string, body: Json) =>
        (await h.inject({ method: 'POST', url: '/api/teams', payload: { name, ...body } })).json<{ id: string }>().id;
      const teamA = await team(`A-${target.name}`, { memberIds: [userIds.memberA], leadIds: [userIds.leadA] });
      const teamB = await team(`B-${target.name}`, { memberIds: [userIds.memberB] });
      const owners = { A: teamA, B: teamB };
      for (const secret of Object.keys(ownerOf) as Secret[]) {
        const owner = ownerOf[secret];
        const response = await h.inject({
          method: 'POST',
          url: '/api/secrets',
          payload: {
            name: `${secret}-${target.name}`,
            secretProvider: 'custom',
            ownerId: owner === null ? null : owners[owner],
            configuration: { secrets: [] },
          },
        });
        expect(response.statusCode, response.body).toBe(201);
        secrets[secret] = response.json<{ id: string }>().id;
      }
      const grant = async (secret: Secret, subjectType: 'user' | 'team', subjectId: string, level: PermissionLevel) => {
        const response = await h.inject({
          method: 'PUT',
          url: `/api/secrets/${secrets[secret]}/grants`,
          payload: { subjectType, subjectId, level },
        });
        expect(response.statusCode, response.body).toBe(200);
      };
      await grant('ownedB', 'user', userIds.grantee, 'read');
      await grant('ownedAGrantedB', 'team', teamB, 'write');
    }, 60_000);
    afterAll(async () => h.close());

    it('agrees on every caller and secret: REST list, GraphQL list, count and the permissions view', async () => {
      for (const person of Object.keys(roles) as Person[]) {
        const headers = { authorization: `Bearer ${tokens[person]}` };
        const listed = new Set(
          (await h.app.inject({ method: 'GET', url: '/api/secrets?range=[0,500]', headers })).json<{ id: string }[]>().map((s) => s.id),
        );
        const graph = (
          await h.app.inject({
            method: 'POST',
            url: '/api/graphql',
            headers,
            payload: { query: '{ secrets(range: [0, 500]) { id myPermissions } secretsCount }' },
          })
        ).json<{
          data: { secrets: { id: string; myPermissions: string[] }[]; secretsCount: number };
        }>().data;
        const graphLevels = new Map(graph.secrets.map((s) => [s.id, s.myPermissions]));
        expect(graph.secretsCount, person).toBe(graph.secrets.length);
        for (const secret of Object.keys(ownerOf) as Secret[]) {
          const level = expected(person, secret);
          const readable = levelIncludes(level, 'read');
          const id = secrets[secret];
          expect(listed.has(id), `${person} lists ${secret}`).toBe(readable);
          expect(graphLevels.has(id), `${person} lists ${secret} in GraphQL`).toBe(readable);
          const view = await h.app.inject({ method: 'GET', url: `/api/secrets/${id}/permissions`, headers });
          expect(view.statusCode, `${person} views ${secret}`).toBe(readable ? 200 : 404);
          if (!readable) continue;
          const held = (['read', 'write', 'admin'] as const).filter((l) => levelIncludes(level, l));
          expect(view.json<{ myPermissions: string[] }>().myPermissions, `${person} on ${secret}`).toEqual(held);
          expect(graphLevels.get(id), `${person} on ${secret} in GraphQL`).toEqual(held);
        }
      }
    });
  });
}
