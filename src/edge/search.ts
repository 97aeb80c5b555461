import { z } from 'zod';
import { parseInput } from '../validation.js';
import { SEARCHABLE_KINDS, type SearchHit, type SearchQuery } from '../read/search.js';

/** A search's text: what a person types, trimmed; long enough to mean something, short enough to plan. */
const text = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');

/** The default page of a search: a search box shows the first few hits. */
export const SEARCH_PAGE_SIZE = 20;

/** A search as both APIs take it (REST decodes its JSON-encoded query parameters first). */
export function parseSearch(input: { q: unknown; kinds?: unknown; range?: unknown }, maxPageSize: number): SearchQuery {
  const schema = z.strictObject({
    q: text,
    kinds: z
      .array(z.enum(SEARCHABLE_KINDS as [string, ...string[]], { message: `must be one of ${SEARCHABLE_KINDS.join(', ')}` }))
      .min(1, 'must name at least one kind (leave it out to search every kind)')
      .optional(),
    range: z
      .tuple([z.number().int().min(0, 'must not be negative'), z.number().int().min(0).max(maxPageSize, `at most ${maxPageSize}`)], {
        message: 'must be [offset, limit]',
      })
      .optional(),
  });
  const parsed = parseInput(schema, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null)), 'search');
  const [offset, limit] = parsed.range ?? [0, SEARCH_PAGE_SIZE];
  return { q: parsed.q, ...(parsed.kinds && { kinds: parsed.kinds }), offset, limit };
}

/** A hit as the APIs answer it: the entity, where it matched, and where to open it. */
export interface SearchHitView extends SearchHit {
  /** The entity in the REST API. */
  readonly href: string;
  /** The entity's page in the web UI. */
  readonly link: string;
}

/** A hit with its addresses. */
export const toSearchHitView = (hit: SearchHit): SearchHitView => ({
  ...hit,
  href: `/api/${hit.plural}/${hit.id}`,
  link: `/${hit.plural}/${hit.id}/show`,
});
