import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { gitRefName, integrationIdField, ownerIdField } from './inputs.js';

/** Git hosts a source code may live on (docs/contract.md §2); `git_public` needs no integration. */
export const SOURCE_CODE_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'] as const;

/** Languages a source code may be written in (only OpenTofu today). */
export const SOURCE_CODE_LANGUAGES = ['opentofu'] as const;

/** Where a repository is hosted. */
export type SourceCodeProvider = (typeof SOURCE_CODE_PROVIDERS)[number];

// What `git clone` accepts: scheme://[user@]host[:port]/path, or scp-like user@host:path; the path
// must name something (not only slashes), a trailing slash or .git is fine.
const CLONE_URL =
  /^(?:https?|ssh|git|git\+ssh):\/\/(?:[^\s@/]+@)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?\/(?=[^\s?#]*[^\s?#/])[^\s?#]*$/i;
const CLONE_SCP = /^[A-Za-z0-9._-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?:(?!\/\/)(?=[^\s?#]*[^\s?#/])[^\s?#]*$/;

// The same two forms, split into parts for normalising.
const URL_PARTS = /^(?<scheme>[A-Za-z][A-Za-z0-9+.-]*):\/\/(?<user>[^@/]+@)?(?<host>[^/:]+)(?<rest>(?::\d+)?(?:\/.*)?)$/;
const SCP_PARTS = /^(?<user>[^@/:]+@)?(?<host>[^/:]+):(?<rest>.*)$/;

/**
 * The form of a repository URL that two spellings of one repository share: scheme and host lower
 * case (they are case-insensitive), no trailing `/` or `.git` (both address the same repository).
 */
export function normaliseSourceCodeUrl(url: string): string {
  const trimmed = url.trim();
  const asUrl = URL_PARTS.exec(trimmed)?.groups;
  const asScp = asUrl ? undefined : SCP_PARTS.exec(trimmed)?.groups;
  let out = trimmed;
  if (asUrl) out = `${(asUrl.scheme ?? '').toLowerCase()}://${asUrl.user ?? ''}${(asUrl.host ?? '').toLowerCase()}${asUrl.rest ?? ''}`;
  else if (asScp) out = `${asScp.user ?? ''}${(asScp.host ?? '').toLowerCase()}:${asScp.rest ?? ''}`;
  return out
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '');
}

const refList = z.array(gitRefName).max(1000, 'at most 1000 entries');

/**
 * Source codes: git repositories holding infrastructure code (docs/contract.md §2). `identifier` is
 * derived from the URL (a client may send it only equal to it).
 */
export const sourceCodeEntity = {
  name: 'SourceCode',
  kind: 'source_code',
  plural: 'source_codes',
  table: 'source_codes',
  description: 'A git repository holding infrastructure code.',
  fields: {
    sourceCodeUrl: {
      kind: 'text',
      description: 'The repository URL (unique).',
      input: z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(2000, 'at most 2000 characters')
        .refine(
          (url) => CLONE_URL.test(url) || CLONE_SCP.test(url),
          'must be an http(s), ssh or git URL of a repository, or user@host:path',
        ),
      required: true,
      unique: {
        key: 'source-code-url',
        caseInsensitive: false,
        normalise: normaliseSourceCodeUrl,
        message: (url: string) => `a source code with the URL "${url}" already exists`,
      },
    },
    identifier: { kind: 'text', description: 'The identifier of the source code (its URL).', input: z.string(), search: true },
    sourceCodeProvider: {
      kind: 'enum',
      values: SOURCE_CODE_PROVIDERS,
      description: '`github`, `gitlab`, `bitbucket`, `azure_devops` or `git_public`.',
      required: true,
      immutable: true,
    },
    sourceCodeLanguage: { kind: 'enum', values: SOURCE_CODE_LANGUAGES, description: 'The code language: `opentofu`.', default: 'opentofu' },
    gitTags: { kind: 'textList', description: 'Known git tags.', input: refList, default: [] },
    gitBranches: { kind: 'textList', description: 'Known git branches.', input: refList, default: [] },
    integrationId: {
      ...integrationIdField('The git integration used to reach the repository (null for public repositories).', {
        type: 'git',
        providerField: 'sourceCodeProvider',
        except: ['git_public'],
      }),
      nullable: true,
      default: null,
    },
    ownerId: ownerIdField(2),
  },
} as const satisfies EntityDeclaration;
