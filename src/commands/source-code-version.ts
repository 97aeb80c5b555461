import type { FieldIssue } from '../errors.js';
import { sourceCodeVersionEventTypes, type SourceCodeVersionFields } from '../events/source-code-version.js';
import { sourceCodeVersionEntity, sourceCodeVersionIdentifier } from '../model/source-code-version.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** Exactly one of a tag and a branch, and the identifier derived from them and the folder. */
function check(fields: SourceCodeVersionFields): FieldIssue[] {
  const hasTag = fields.sourceCodeVersion !== null;
  const hasBranch = fields.sourceCodeBranch !== null;
  if (hasTag && hasBranch) {
    return [
      { field: 'sourceCodeVersion', message: 'sourceCodeVersion must not be set together with sourceCodeBranch' },
      { field: 'sourceCodeBranch', message: 'sourceCodeBranch must not be set together with sourceCodeVersion' },
    ];
  }
  if (!hasTag && !hasBranch) {
    return [
      { field: 'sourceCodeVersion', message: 'sourceCodeVersion (a git tag) is required when sourceCodeBranch is not set' },
      { field: 'sourceCodeBranch', message: 'sourceCodeBranch is required when sourceCodeVersion (a git tag) is not set' },
    ];
  }
  const identifier = sourceCodeVersionIdentifier(fields);
  return fields.identifier === identifier
    ? []
    : [
        {
          field: 'identifier',
          message: `identifier is derived from sourceCodeFolder and the tag or branch and must equal it ("${identifier}")`,
        },
      ];
}

/**
 * Source code versions: a folder at a tag or branch of one source code, unique per source code.
 * The source code and template are fixed at creation: resources built from a version rely on both.
 */
export const sourceCodeVersionAggregate = catalogAggregate<SourceCodeVersionFields>({
  ...declaredRules(sourceCodeVersionEntity, check),
  events: sourceCodeVersionEventTypes,
});
