import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** Git hosts a source code may live on (docs/contract.md §2); `git_public` needs no integration. */
export const SOURCE_CODE_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'] as const;

/** Languages a source code may be written in (only OpenTofu today). */
export const SOURCE_CODE_LANGUAGES = ['opentofu'] as const;

/** Where a repository is hosted. */
export type SourceCodeProvider = (typeof SOURCE_CODE_PROVIDERS)[number];

/** The fields a SourceCode event carries; `identifier` always equals `sourceCodeUrl`. */
export const sourceCodeFields = z.object({
  sourceCodeUrl: z.string(),
  identifier: z.string(),
  sourceCodeProvider: z.enum(SOURCE_CODE_PROVIDERS),
  sourceCodeLanguage: z.enum(SOURCE_CODE_LANGUAGES),
  gitTags: z.array(z.string()),
  gitBranches: z.array(z.string()),
  /** The git integration that grants access; null for public repositories. */
  integrationId: z.string().nullable(),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields a source code keeps. */
export type SourceCodeFields = z.infer<typeof sourceCodeFields>;

/** The SourceCode event types, spelled out. */
export const sourceCodeEventTypes = {
  created: 'SourceCodeCreated',
  updated: 'SourceCodeUpdated',
  enabled: 'SourceCodeEnabled',
  disabled: 'SourceCodeDisabled',
  deleted: 'SourceCodeDeleted',
} as const satisfies CatalogEventTypes<'SourceCode'>;

/** The source code event definitions. */
export const sourceCodeEvents = catalogEvents(sourceCodeEventTypes, sourceCodeFields);

/** Every SourceCode event, typed by its literal name. */
export type SourceCodeEvent = EventOf<(typeof sourceCodeEvents)[number]>;
