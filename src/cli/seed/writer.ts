import type { Aggregate } from '../../commands/decider.js';
import { executeCommand, type CommandDeps, type CommandResult, type Loaded, type PreparedCommand } from '../../commands/handler.js';
import type { AppError } from '../../errors.js';
import { isAppError } from '../../errors.js';
import type { DomainEvent } from '../../events/codec.js';
import type { CommandContext } from '../../events/define.js';

/** The entity kinds a seed creates, in the order it creates them. */
export const SEEDED_KINDS = [
  'integration',
  'secret',
  'storage',
  'source_code',
  'executor',
  'template',
  'source_code_version',
  'resource',
] as const;
/** The kinds a seed run counts. */
export type SeededKind = (typeof SEEDED_KINDS)[number];

/** A command of the seed failed: what it was doing, and the service's own message. */
export class SeedError extends Error {
  override readonly name = 'SeedError';
}

/** Runs seed commands through the command handler and counts what they wrote. */
export interface SeedWriter {
  /**
   * executeCommand with the seed's actor and correlation id; `what` names the command in a failure
   * (`creating resource seed-ab12cd-res-17: …`), with the field issues of a 409/422 appended. `known`
   * is the state the seed's previous command on this aggregate left (or `unwritten` for a new id):
   * the command decides on it without reading the stream again, as its append still checks.
   */
  run<C, E extends DomainEvent, S>(
    what: string,
    aggregate: Aggregate<C, E, S>,
    id: string,
    command: C | PreparedCommand<C>,
    known?: Loaded<S>,
  ): Promise<CommandResult<S, E>>;
  /** Counts one entity of `kind` as created. */
  created(kind: SeededKind): void;
  readonly counts: Readonly<Record<SeededKind, number>>;
  /** Commands that wrote events, and the entity events they wrote (without reservation and reference records). */
  readonly totals: { readonly commands: number; readonly events: number };
}

const describe = (error: AppError): string => {
  const fields = error.errors.map((e) => `${e.field}: ${e.message}`);
  return fields.length > 0 ? `${error.message} (${fields.join('; ')})` : error.message;
};

/** A seed writer: runs commands through the command path, counts them, names the failing step. */
export function createSeedWriter(deps: CommandDeps, context: Omit<CommandContext, 'now'>, now: () => Date): SeedWriter {
  const counts = Object.fromEntries(SEEDED_KINDS.map((kind) => [kind, 0])) as Record<SeededKind, number>;
  const totals = { commands: 0, events: 0 };
  return {
    async run(what, aggregate, id, command, known) {
      try {
        const result = await executeCommand(deps, aggregate, id, command, { ...context, now: now(), known });
        totals.commands += 1;
        totals.events += result.events.length;
        return result;
      } catch (error) {
        const message = isAppError(error) ? `${error.code}: ${describe(error)}` : error instanceof Error ? error.message : String(error);
        throw new SeedError(`${what}: ${message}`, { cause: error });
      }
    },
    created(kind) {
      counts[kind] += 1;
    },
    counts,
    totals,
  };
}
