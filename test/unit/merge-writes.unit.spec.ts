import { describe, expect, it } from 'vitest';
import { mergeWrites } from '../../src/commands/references.js';
import { StreamRevisionConflictError } from '../../src/events/store/port.js';

describe('merging the writes of one append', () => {
  const event = { eventId: 'e1', type: 'ReferenceAdded', data: {}, metadata: {} };

  it('joins the events of one stream and keeps an expectation both sides share', () => {
    expect(
      mergeWrites([
        { streamId: 'refs-resource-p', expectedRevision: 3n, events: [] },
        { streamId: 'refs-resource-p', expectedRevision: 3n, events: [event] },
      ]),
    ).toEqual([{ streamId: 'refs-resource-p', expectedRevision: 3n, events: [event] }]);
  });

  it('keeps the stricter of "stream exists" and a revision, and of "any" and anything', () => {
    expect(
      mergeWrites([
        { streamId: 's', expectedRevision: 'stream_exists', events: [] },
        { streamId: 's', expectedRevision: 2n, events: [] },
      ])[0]?.expectedRevision,
    ).toBe(2n);
    expect(
      mergeWrites([
        { streamId: 's', expectedRevision: 'any', events: [] },
        { streamId: 's', expectedRevision: 'no_stream', events: [] },
      ])[0]?.expectedRevision,
    ).toBe('no_stream');
  });

  it('is a revision conflict when two rules read the stream at different revisions', () => {
    // E.g. a parent's lineage facts read before its destroy committed, its reference check after.
    expect(() =>
      mergeWrites([
        { streamId: 'resource-p', expectedRevision: 5n, events: [] },
        { streamId: 'resource-p', expectedRevision: 4n, events: [] },
      ]),
    ).toThrow(StreamRevisionConflictError);
  });
});
