import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { uniqueNameField } from './inputs.js';

/** A user's role in a team: members change what the team owns, leads administer it and approve its requests. */
export const TEAM_ROLES = ['member', 'lead'] as const;
/** A role in a team. */
export type TeamRole = (typeof TEAM_ROLES)[number];

/**
 * A group of the identity provider as a sign-in reports it: a Backstage ownership reference
 * (`group:default/payments`) or a value of an OIDC provider's groups claim (`payments`).
 */
export const groupReference = z.string().trim().toLowerCase().min(1, 'must not be empty').max(300, 'at most 300 characters');

/** At most this many groups of one sign-in are kept (a token listing more keeps the first ones, sorted). */
export const MAX_OBSERVED_GROUPS = 200;

/**
 * The groups a sign-in reported, as they are kept and matched: strings only, trimmed and lower-cased
 * (Backstage references are case-insensitive; teams' `groupReferences` are lower-cased too), without
 * repeats, sorted, at most MAX_OBSERVED_GROUPS of at most 300 characters.
 */
export function normaliseGroups(values: readonly unknown[]): string[] {
  const groups = values
    .flatMap((value) => (typeof value === 'string' ? [value.trim().toLowerCase()] : []))
    .filter((group) => group !== '' && group.length <= 300);
  return [...new Set(groups)].sort().slice(0, MAX_OBSERVED_GROUPS);
}

const userList = (name: string, description: string, table: string) =>
  ({
    kind: 'idList',
    description,
    target: 'user',
    default: [],
    link: { table, ownerColumn: 'team_id', targetColumn: 'user_id' },
    filterAs: `${name}Id`,
    relation: { name: `${name}s`, type: 'User', description },
  }) as const;

/**
 * Teams (docs/contract.md §6, ownership): who owns catalog entities. Members write what the team
 * owns, leads administer it and approve requests for its templates. Membership is the listed users
 * plus, while they last, the users whose sign-in reported one of `groupReferences`.
 */
export const teamEntity = {
  name: 'Team',
  kind: 'team',
  plural: 'teams',
  table: 'teams',
  description: 'A team of users that owns catalog entities: members change them, leads administer them and approve their requests.',
  fields: {
    name: uniqueNameField('team-name', 'a team'),
    memberIds: userList('member', 'The users who are members (write what the team owns).', 'team_members'),
    leadIds: userList('lead', 'The users who lead it (administer what the team owns and approve its requests).', 'team_leads'),
    groupReferences: {
      kind: 'textList',
      description:
        'Identity-provider groups whose members are members at their next sign-in: Backstage references (`group:default/payments`) or ' +
        "values of a provider's groups claim.",
      input: z.array(groupReference).max(50, 'at most 50 groups'),
      default: [],
      filter: true,
    },
    allowSelfApproval: {
      kind: 'boolean',
      description:
        "Whether an approver may approve a request they made themselves, for this team's templates (docs/contract.md §6, " +
        'separation of duties). Off by default; only holders of `team:write` change it, and a self-approval says so in its event.',
      default: false,
      addedIn: 2,
    },
  },
} as const satisfies EntityDeclaration;
