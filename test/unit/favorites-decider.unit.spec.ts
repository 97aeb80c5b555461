import { describe, it } from 'vitest';
import { favoritesAggregate, MAX_FAVORITES, type FavoriteRef } from '../../src/commands/favorite.js';
import type { FavoriteEvent } from '../../src/events/favorite.js';
import { deciderSpec } from '../support/decider-spec.js';

/** A user's favorites (docs/contract.md §2): idempotent stars, bounded in number. */
const spec = deciderSpec(favoritesAggregate);
const template: FavoriteRef = { entityType: 'template', entityId: '6f1a4c7e-2b9d-4e8f-a1c3-5d7e9f0b2a4c' };
const added = (ref: FavoriteRef): FavoriteEvent => ({ type: 'FavoriteAdded', data: ref });
const removed = (ref: FavoriteRef): FavoriteEvent => ({ type: 'FavoriteRemoved', data: ref });

describe('the favorites decider', () => {
  it('stars an entity once: starring it again writes nothing', () => {
    spec
      .given([])
      .when({ type: 'Add', data: template })
      .then([added(template)]);
    spec
      .given([added(template)])
      .when({ type: 'Add', data: template })
      .then([]);
  });

  it('unstars a starred entity, and nothing when it is not starred', () => {
    spec
      .given([added(template)])
      .when({ type: 'Remove', data: template })
      .then([removed(template)]);
    spec
      .given([added(template), removed(template)])
      .when({ type: 'Remove', data: template })
      .then([]);
  });

  it(`keeps at most ${MAX_FAVORITES} favorites`, () => {
    const many = Array.from({ length: MAX_FAVORITES }, (_, i) =>
      added({ entityType: 'resource', entityId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }),
    );
    spec
      .given(many)
      .when({ type: 'Add', data: template })
      .thenThrows({
        code: 'UNPROCESSABLE',
        message: `at most ${MAX_FAVORITES} favorites: remove one first`,
        errors: [{ field: 'id', message: `at most ${MAX_FAVORITES} favorites` }],
      });
  });
});
