import type { FieldIssue } from '../errors.js';
import { sourceCodeEventTypes, type SourceCodeFields } from '../events/source-code.js';
import { sourceCodeEntity } from '../model/source-code.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** The identifier is the URL, and a public repository takes no integration. */
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
  ...declaredRules(sourceCodeEntity, check),
  events: sourceCodeEventTypes,
});
