import { describe, expect, it } from 'vitest';
import type { CatalogCommand } from '../../src/commands/catalog-entity.js';
import { fold } from '../../src/commands/decider.js';
import { sourceCodeVersionAggregate } from '../../src/commands/source-code-version.js';
import { sourceCodeAggregate } from '../../src/commands/source-code.js';
import { normaliseSourceCodeUrl } from '../../src/model/source-code.js';
import { sourceCodeVersionIdentifier } from '../../src/model/source-code-version.js';
import type { DomainEvent } from '../../src/events/codec.js';
import type { SourceCodeVersionFields } from '../../src/events/source-code-version.js';
import type { SourceCodeFields } from '../../src/events/source-code.js';
import { deciderSpec } from '../support/decider-spec.js';

const SOURCE_CODE_ID = '0b0c6a52-2f0e-4a53-9d7e-2a1d6f3c9e01';
const VERSION_ID = '5d2f8e3a-7b61-4c0d-8e9f-1a2b3c4d5e6f';
const INTEGRATION_ID = 'a3c1e5f7-9b2d-4f6a-8c0e-1d3f5a7b9c2e';
const TEMPLATE_ID = 'c7e9a1b3-d5f7-4a9c-b1d3-e5f7a9c1b3d5';

const URL = 'https://GitHub.com/Acme/Modules.git';
const sourceCode: SourceCodeFields = {
  ownerId: null,
  sourceCodeUrl: URL,
  identifier: URL,
  sourceCodeProvider: 'github',
  sourceCodeLanguage: 'opentofu',
  gitTags: ['v1.0.0'],
  gitBranches: ['main'],
  integrationId: INTEGRATION_ID,
  description: '',
  labels: [],
};
const sourceCodeCreated: DomainEvent = { type: 'SourceCodeCreated', data: { ...sourceCode, id: SOURCE_CODE_ID, status: 'enabled' } };
const createSourceCode = (fields: Partial<SourceCodeFields> = {}): CatalogCommand<SourceCodeFields> => ({
  type: 'Create',
  data: { ...sourceCode, ...fields, id: SOURCE_CODE_ID, status: 'enabled' },
});

const version: SourceCodeVersionFields = {
  ownerId: null,
  sourceCodeVersion: 'v1.0.0',
  sourceCodeBranch: null,
  sourceCodeFolder: 'modules/vpc',
  identifier: 'modules/vpc:v1.0.0',
  variables: [{ name: 'cidr', type: 'string', required: true, default: null, description: '', sensitive: false }],
  outputs: [{ name: 'vpc_id', description: '', sensitive: false }],
  lifecycleState: 'preview',
  templateId: TEMPLATE_ID,
  sourceCodeId: SOURCE_CODE_ID,
  breakingChanges: null,
  index: 0,
  description: '',
  labels: [],
};
const versionCreated: DomainEvent = { type: 'SourceCodeVersionCreated', data: { ...version, id: VERSION_ID, status: 'enabled' } };
const createVersion = (fields: Partial<SourceCodeVersionFields> = {}): CatalogCommand<SourceCodeVersionFields> => ({
  type: 'Create',
  data: { ...version, ...fields, id: VERSION_ID, status: 'enabled' },
});
const updateVersion = (changes: Partial<SourceCodeVersionFields>): CatalogCommand<SourceCodeVersionFields> => ({
  type: 'Update',
  data: { changes },
});

const sourceCodes = deciderSpec(sourceCodeAggregate);
const versions = deciderSpec(sourceCodeVersionAggregate);

describe('a source code', () => {
  describe('when its URL is normalised for uniqueness', () => {
    it('lower-cases scheme and host but keeps the path as written', () => {
      expect(normaliseSourceCodeUrl('HTTPS://GitHub.COM/Acme/Modules')).toBe('https://github.com/Acme/Modules');
      expect(normaliseSourceCodeUrl('ssh://Git@GitHub.com:22/Acme/Modules.git')).toBe('ssh://Git@github.com:22/Acme/Modules');
      expect(normaliseSourceCodeUrl('git@GitHub.com:Acme/Modules.git')).toBe('git@github.com:Acme/Modules');
    });

    it('strips a trailing .git and trailing slashes', () => {
      for (const url of [
        'https://github.com/acme/modules.git',
        'https://github.com/acme/modules/',
        'https://github.com/acme/modules.git/',
        'https://github.com/acme/modules.GIT',
      ]) {
        expect(normaliseSourceCodeUrl(url)).toBe('https://github.com/acme/modules');
      }
    });

    it('holds one unique key for every spelling of the same repository, and none once deleted', () => {
      const keyOf = (url: string) =>
        sourceCodeAggregate.uniqueKeys(
          fold(sourceCodeAggregate, [
            {
              type: 'SourceCodeCreated',
              data: { ...sourceCode, sourceCodeUrl: url, identifier: url, id: SOURCE_CODE_ID, status: 'enabled' },
            },
          ]),
        );
      expect(keyOf(URL)).toEqual([
        {
          key: 'source-code-url:https://github.com/Acme/Modules',
          field: 'sourceCodeUrl',
          message: `a source code with the URL "${URL}" already exists`,
        },
      ]);
      expect(keyOf('https://github.com/Acme/Modules/')[0]?.key).toBe('source-code-url:https://github.com/Acme/Modules');
      expect(
        sourceCodeAggregate.uniqueKeys(fold(sourceCodeAggregate, [sourceCodeCreated, { type: 'SourceCodeDeleted', data: {} }])),
      ).toEqual([]);
    });
  });

  describe('when created', () => {
    it('records the Created event with its fields', () => {
      sourceCodes.given([]).when(createSourceCode()).then([sourceCodeCreated]);
    });

    it('refuses an identifier other than its URL, naming identifier', () => {
      const message = `identifier is derived from sourceCodeUrl and must equal it ("${URL}")`;
      sourceCodes
        .given([])
        .when(createSourceCode({ identifier: 'modules' }))
        .thenThrows({ code: 'UNPROCESSABLE', message, errors: [{ field: 'identifier', message }] });
    });

    it('refuses an integration for a git_public repository, naming integrationId', () => {
      const message = 'a git_public source code takes no integration';
      sourceCodes
        .given([])
        .when(createSourceCode({ sourceCodeProvider: 'git_public' }))
        .thenThrows({ code: 'UNPROCESSABLE', message, errors: [{ field: 'integrationId', message }] });
      sourceCodes
        .given([])
        .when(createSourceCode({ sourceCodeProvider: 'git_public', integrationId: null }))
        .then([
          {
            type: 'SourceCodeCreated',
            data: { ...sourceCode, sourceCodeProvider: 'git_public', integrationId: null, id: SOURCE_CODE_ID, status: 'enabled' },
          },
        ]);
    });
  });

  describe('when updated', () => {
    it('moves URL and identifier together', () => {
      const moved = 'https://gitlab.com/acme/modules';
      sourceCodes
        .given([sourceCodeCreated])
        .when({ type: 'Update', data: { changes: { sourceCodeUrl: moved, identifier: moved } } })
        .then([{ type: 'SourceCodeUpdated', data: { changes: { sourceCodeUrl: moved, identifier: moved } } }]);
    });

    it('refuses a URL whose identifier was not moved with it', () => {
      sourceCodes
        .given([sourceCodeCreated])
        .when({ type: 'Update', data: { changes: { sourceCodeUrl: 'https://gitlab.com/acme/x' } } })
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'identifier is derived from sourceCodeUrl and must equal it ("https://gitlab.com/acme/x")',
        });
    });

    it('keeps its provider', () => {
      sourceCodes
        .given([sourceCodeCreated])
        .when({ type: 'Update', data: { changes: { sourceCodeProvider: 'gitlab' } } })
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'sourceCodeProvider is immutable (it is "github")',
        });
    });
  });

  describe('when asked what it points at', () => {
    it('refers to its integration, and to nothing without one', () => {
      expect(sourceCodeAggregate.references(fold(sourceCodeAggregate, [sourceCodeCreated]))).toEqual([
        { kind: 'integration', id: INTEGRATION_ID, field: 'integrationId' },
      ]);
      expect(
        sourceCodeAggregate.references(
          fold(sourceCodeAggregate, [sourceCodeCreated, { type: 'SourceCodeUpdated', data: { changes: { integrationId: null } } }]),
        ),
      ).toEqual([]);
    });
  });
});

describe('a source code version', () => {
  describe('when its tag or branch is given', () => {
    it('takes a tag alone or a branch alone', () => {
      versions.given([]).when(createVersion()).then([versionCreated]);
      versions
        .given([])
        .when(createVersion({ sourceCodeVersion: null, sourceCodeBranch: 'main', identifier: 'modules/vpc:main' }))
        .then([
          {
            type: 'SourceCodeVersionCreated',
            data: {
              ...version,
              sourceCodeVersion: null,
              sourceCodeBranch: 'main',
              identifier: 'modules/vpc:main',
              id: VERSION_ID,
              status: 'enabled',
            },
          },
        ]);
    });

    it('refuses both, naming both fields', () => {
      versions
        .given([])
        .when(createVersion({ sourceCodeBranch: 'main' }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message:
            'sourceCodeVersion must not be set together with sourceCodeBranch; sourceCodeBranch must not be set together with ' +
            'sourceCodeVersion',
          errors: [
            { field: 'sourceCodeVersion', message: 'sourceCodeVersion must not be set together with sourceCodeBranch' },
            { field: 'sourceCodeBranch', message: 'sourceCodeBranch must not be set together with sourceCodeVersion' },
          ],
        });
    });

    it('refuses neither, naming both fields', () => {
      versions
        .given([])
        .when(createVersion({ sourceCodeVersion: null }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message:
            'sourceCodeVersion (a git tag) is required when sourceCodeBranch is not set; sourceCodeBranch is required when ' +
            'sourceCodeVersion (a git tag) is not set',
          errors: [
            { field: 'sourceCodeVersion', message: 'sourceCodeVersion (a git tag) is required when sourceCodeBranch is not set' },
            { field: 'sourceCodeBranch', message: 'sourceCodeBranch is required when sourceCodeVersion (a git tag) is not set' },
          ],
        });
    });

    it('applies the rule to the fields after an update: a switch to a branch must clear the tag', () => {
      versions
        .given([versionCreated])
        .when(updateVersion({ sourceCodeVersion: null, sourceCodeBranch: 'main', identifier: 'modules/vpc:main' }))
        .then([
          {
            type: 'SourceCodeVersionUpdated',
            data: { changes: { sourceCodeVersion: null, sourceCodeBranch: 'main', identifier: 'modules/vpc:main' } },
          },
        ]);
      versions
        .given([versionCreated])
        .when(updateVersion({ sourceCodeBranch: 'main', identifier: 'modules/vpc:main' }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message:
            'sourceCodeVersion must not be set together with sourceCodeBranch; sourceCodeBranch must not be set together with ' +
            'sourceCodeVersion',
        });
    });
  });

  describe('when its identifier is derived', () => {
    it('is folder:tagOrBranch', () => {
      expect(sourceCodeVersionIdentifier({ sourceCodeFolder: 'modules/vpc', sourceCodeVersion: 'v1.0.0', sourceCodeBranch: null })).toBe(
        'modules/vpc:v1.0.0',
      );
      expect(sourceCodeVersionIdentifier({ sourceCodeFolder: '.', sourceCodeVersion: null, sourceCodeBranch: 'feature/x' })).toBe(
        '.:feature/x',
      );
    });

    it('refuses any other identifier, naming identifier', () => {
      const message = 'identifier is derived from sourceCodeFolder and the tag or branch and must equal it ("modules/vpc:v1.0.0")';
      versions
        .given([])
        .when(createVersion({ identifier: 'vpc' }))
        .thenThrows({ code: 'UNPROCESSABLE', message, errors: [{ field: 'identifier', message }] });
    });
  });

  describe('when asked what it holds and points at', () => {
    it('holds its identifier within its source code', () => {
      expect(sourceCodeVersionAggregate.uniqueKeys(fold(sourceCodeVersionAggregate, [versionCreated]))).toEqual([
        {
          key: `source-code-version:${SOURCE_CODE_ID}:modules/vpc:v1.0.0`,
          field: 'identifier',
          message: `source code ${SOURCE_CODE_ID} already has a version "modules/vpc:v1.0.0"`,
        },
      ]);
    });

    it('refers to its template and its source code', () => {
      expect(sourceCodeVersionAggregate.references(fold(sourceCodeVersionAggregate, [versionCreated]))).toEqual([
        { kind: 'template', id: TEMPLATE_ID, field: 'templateId' },
        { kind: 'source_code', id: SOURCE_CODE_ID, field: 'sourceCodeId' },
      ]);
      expect(
        sourceCodeVersionAggregate.references(
          fold(sourceCodeVersionAggregate, [versionCreated, { type: 'SourceCodeVersionDeleted', data: {} }]),
        ),
      ).toEqual([]);
    });

    it('keeps its template and source code', () => {
      versions
        .given([versionCreated])
        .when(updateVersion({ templateId: SOURCE_CODE_ID }))
        .thenThrows({ code: 'UNPROCESSABLE', message: `templateId is immutable (it is "${TEMPLATE_ID}")` });
      versions
        .given([versionCreated])
        .when(updateVersion({ sourceCodeId: TEMPLATE_ID }))
        .thenThrows({ code: 'UNPROCESSABLE', message: `sourceCodeId is immutable (it is "${SOURCE_CODE_ID}")` });
    });
  });
});
