import type { FieldIssue } from '../errors.js';
import { type SourceCodeVersionFields, sourceCodeVersionEventTypes } from '../events/source-code-version.js';
import { catalogAggregate } from './catalog-entity.js';

type IdentifierParts = Pick<SourceCodeVersionFields, 'sourceCodeFolder' | 'sourceCodeVersion' | 'sourceCodeBranch'>;

/**
 * `folder:tagOrBranch`. Git forbids `:` in tag and branch names, so the last `:` always separates
 * the two, whatever the folder holds.
 */
export const sourceCodeVersionIdentifier = (f: IdentifierParts): string => `${f.sourceCodeFolder}:${f.sourceCodeVersion ?? f.sourceCodeBranch ?? ''}`;

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
    : [{ field: 'identifier', message: `identifier is derived from sourceCodeFolder and the tag or branch and must equal it ("${identifier}")` }];
}

/**
 * Source code versions: a folder at a tag or branch of one source code, unique per source code.
 * The source code and template are fixed at creation: resources built from a version rely on both.
 */
export const sourceCodeVersionAggregate = catalogAggregate<SourceCodeVersionFields>({
  kind: 'source_code_version',
  events: sourceCodeVersionEventTypes,
  immutable: ['sourceCodeId', 'templateId'],
  uniqueKeys: (f) => [
    {
      key: `source-code-version:${f.sourceCodeId}:${f.identifier}`,
      field: 'identifier',
      message: `source code ${f.sourceCodeId} already has a version "${f.identifier}"`,
    },
  ],
  references: (f) => [
    { kind: 'template', id: f.templateId, field: 'templateId' },
    { kind: 'source_code', id: f.sourceCodeId, field: 'sourceCodeId' },
  ],
  check,
});
