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
  template: streamName('template'),
  integration: streamName('integration'),
  secret: streamName('secret'),
  workspace: streamName('workspace'),
  team: streamName('team'),
  access: streamName('access'),
  favorites: streamName('favorites'),
  source_code: streamName('source_code'),
  source_code_version: streamName('source_code_version'),
  storage: streamName('storage'),
  executor: streamName('executor'),
  resource: streamName('resource'),
  user: streamName('user'),
  session: streamName('session'),
  auth_provider: streamName('auth_provider'),
  sso_login: streamName('sso_login'),
  personal_access_token: streamName('personal_access_token'),
} as const;
