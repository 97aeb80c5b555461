import type { FieldIssue } from '../errors.js';
import { type SourceCodeFields, sourceCodeEventTypes } from '../events/source-code.js';
import { catalogAggregate } from './catalog-entity.js';

// `scheme://[user@]host[:port]/path` and scp-like `user@host:path` (what `git clone` accepts).
const URL_FORM = /^(?<scheme>[A-Za-z][A-Za-z0-9+.-]*):\/\/(?<user>[^@/]+@)?(?<host>[^/:]+)(?<rest>(?::\d+)?(?:\/.*)?)$/;
const SCP_FORM = /^(?<user>[^@/:]+@)?(?<host>[^/:]+):(?<rest>.*)$/;

/**
 * The form of a repository URL that two spellings of one repository share: scheme and host lower
 * case (they are case-insensitive), no trailing `/` or `.git` (both address the same repository).
 */
export function normaliseSourceCodeUrl(url: string): string {
  const trimmed = url.trim();
  const asUrl = URL_FORM.exec(trimmed)?.groups;
  const asScp = asUrl ? undefined : SCP_FORM.exec(trimmed)?.groups;
  let out = trimmed;
  if (asUrl) out = `${(asUrl.scheme ?? '').toLowerCase()}://${asUrl.user ?? ''}${(asUrl.host ?? '').toLowerCase()}${asUrl.rest ?? ''}`;
  else if (asScp) out = `${asScp.user ?? ''}${(asScp.host ?? '').toLowerCase()}:${asScp.rest ?? ''}`;
  return out.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+$/, '');
}

function check(fields: SourceCodeFields): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (fields.identifier !== fields.sourceCodeUrl) {
    issues.push({ field: 'identifier', message: `identifier is derived from sourceCodeUrl and must equal it ("${fields.sourceCodeUrl}")` });
  }
  if (fields.sourceCodeProvider === 'git_public' && fields.integrationId !== null) {
    issues.push({ field: 'integrationId', message: 'a git_public source code takes no integration' });
  }
  return issues;
}

/**
 * Source codes: unique by normalised URL; the provider is fixed at creation, so a checked match
 * between it and the integration's provider (immutable too) cannot be broken by a later change.
 */
export const sourceCodeAggregate = catalogAggregate<SourceCodeFields>({
  kind: 'source_code',
  events: sourceCodeEventTypes,
  immutable: ['sourceCodeProvider'],
  uniqueKeys: (f) => [
    { key: `source-code-url:${normaliseSourceCodeUrl(f.sourceCodeUrl)}`, field: 'sourceCodeUrl', message: `a source code with the URL "${f.sourceCodeUrl}" already exists` },
  ],
  references: (f) => (f.integrationId === null ? [] : [{ kind: 'integration', id: f.integrationId, field: 'integrationId' }]),
  check,
});
