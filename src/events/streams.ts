import { DECLARED_ENTITIES, type DeclaredKind } from '../model/catalog.js';

/**
 * Stream ids: `<kind>-<entity id>`. Each aggregate builds and parses its ids through its entry here,
 * never by concatenating or slicing strings at call sites.
 */
export interface StreamName<K extends string = string> {
  readonly kind: K;
  /** The stream of the entity with this id. */
  readonly build: (id: string) => string;
  /** The entity id of one of this kind's streams; a stream of another kind is a programming error. */
  readonly parse: (streamId: string) => string;
}

/** The stream naming of one aggregate kind. */
export function streamName<const K extends string>(kind: K): StreamName<K> {
  const prefix = `${kind}-`;
  return {
    kind,
    build: (id) => `${prefix}${id}`,
    parse: (streamId) => {
      if (!streamId.startsWith(prefix)) throw new TypeError(`stream ${streamId} is not a ${kind} stream`);
      return streamId.slice(prefix.length);
    },
  };
}

/** Every aggregate's stream naming, by kind. */
export const STREAMS = {
  // Every declared kind's (src/model/catalog.ts).
  ...(Object.fromEntries(DECLARED_ENTITIES.map((entity) => [entity.kind, streamName(entity.kind)])) as {
    readonly [K in DeclaredKind]: StreamName<K>;
  }),
  access: streamName('access'),
  favorites: streamName('favorites'),
  user: streamName('user'),
  session: streamName('session'),
  auth_provider: streamName('auth_provider'),
  sso_login: streamName('sso_login'),
  personal_access_token: streamName('personal_access_token'),
} as const;
