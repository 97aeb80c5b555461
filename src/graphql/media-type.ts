/** The GraphQL-over-HTTP media type whose status codes say what went wrong (request errors answer 4xx). */
export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/** The quality a media range in an Accept header gives `type` (`*` wildcards match; absent: 0). */
function qualityOf(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.trim().toLowerCase().split(';');
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < bestSpecificity || specificity < 0) continue;
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    bestSpecificity = specificity;
    best = Number.isFinite(quality) ? quality : 0;
  }
  return Math.max(best, 0);
}

/**
 * Whether the answer is `application/graphql-response+json`: the client names it, and ranks it at
 * least as high as `application/json`. Without an Accept header, or with only wildcards, the answer
 * is `application/json`, as GraphQL over HTTP says for legacy clients.
 */
export function wantsGraphqlResponse(request: { readonly headers: { readonly accept?: string } }): boolean {
  const accept = request.headers.accept;
  if (!accept?.toLowerCase().includes(GRAPHQL_RESPONSE_TYPE)) return false;
  const graphql = qualityOf(accept, GRAPHQL_RESPONSE_TYPE);
  return graphql > 0 && graphql >= qualityOf(accept, 'application/json');
}
