import { z } from 'zod';

/** Field schemas several entities share, declared once so their rules and messages agree. */

/** `description` as every catalog entity takes it. */
export const descriptionField = z.string().max(10_000, 'at most 10000 characters');
/** `labels` as every catalog entity takes them. */
export const labelsField = z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels');

// git check-ref-format, simplified: no space, control or ~^:?*[\ characters, no "..", "//", "@{",
// no component starting with "." or ending with ".lock", not starting with "-" or ending with "/" or ".".
const GIT_REF = /^(?![./-])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock(?:\/|$)))(?!.*[/.]$)[^\s~^:?*[\\\p{Cc}]+$/u;

/** A git tag or branch name. */
export const gitRefName = z.string().trim().min(1, 'must not be empty').max(250, 'at most 250 characters').regex(GIT_REF, 'must be a valid git tag or branch name');

/** `modules//vpc/./` → `modules/vpc`; the repository root is `.`. */
const normaliseFolder = (path: string): string =>
  path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/') || '.';

/** A folder inside a repository: relative, `/`-separated, never climbing out with `..`. */
export const repositoryFolder = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(1000, 'at most 1000 characters')
  .refine((path) => !path.startsWith('/'), 'must be a path relative to the repository root')
  .refine((path) => !path.includes('\\'), 'must separate folders with /')
  .refine((path) => !path.split('/').includes('..'), 'must not contain ..')
  .transform(normaliseFolder);
