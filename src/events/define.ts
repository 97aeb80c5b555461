import { z } from 'zod';

/** Turns event data written at version n into the shape of version n + 1. */
export type Upcaster = (data: Readonly<Record<string, unknown>>) => Record<string, unknown>;

/**
 * One event type: its name, the zod schema of its current data shape, the schema version, the
 * upcasters that lift older stored shapes, and the paths of its secret fields (encrypted in the store).
 */
export interface EventDefinition<
  T extends string = string,
  S extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>,
> {
  readonly type: T;
  readonly version: number;
  readonly schema: S;
  readonly secretPaths: readonly string[];
  /**
   * Which values at the secret paths are hidden in audit views: those whose holding object passes
   * (a resource variable only when `sensitive`); absent, every one.
   */
  readonly secretWhen?: (holder: Readonly<Record<string, unknown>>) => boolean;
  /** Keyed by the version each one upgrades from. */
  readonly upcasters: Readonly<Record<number, Upcaster>>;
}

/** How an event type is declared: its version, secret paths and upcasters. */
export interface DefineEventOptions {
  readonly version?: number;
  readonly secretPaths?: readonly string[];
  readonly secretWhen?: (holder: Readonly<Record<string, unknown>>) => boolean;
  readonly upcasters?: Readonly<Record<number, Upcaster>>;
}

/** Declares an event type. Versions start at 1; every older version needs an upcaster. */
export function defineEvent<const T extends string, S extends z.ZodType<Record<string, unknown>>>(
  type: T,
  schema: S,
  options: DefineEventOptions = {},
): EventDefinition<T, S> {
  const version = options.version ?? 1;
  const upcasters = options.upcasters ?? {};
  for (let from = 1; from < version; from++) {
    if (!upcasters[from]) throw new TypeError(`event ${type} v${version} has no upcaster from v${from}`);
  }
  return {
    type,
    version,
    schema,
    secretPaths: options.secretPaths ?? [],
    ...(options.secretWhen && { secretWhen: options.secretWhen }),
    upcasters,
  };
}

/** The in-memory event a definition describes: `{ type, data }`. */
export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { readonly type: T; readonly data: z.infer<S> } : never;

/** Metadata every stored event carries (docs/architecture.md: actor, correlation, causation, time). */
export const eventMetadataSchema = z.object({
  actorId: z.string().nullable(),
  correlationId: z.string(),
  causationId: z.string().nullable(),
  occurredAt: z.iso.datetime({ offset: true }),
  schemaVersion: z.number().int().positive(),
});

/** The metadata of a stored event. */
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** Who and why, supplied by the edge for every command. */
export type CommandContext = Omit<EventMetadata, 'schemaVersion' | 'occurredAt'> & { readonly now: Date };
