/** A part of the build (server, web UI, GraphiQL): its inputs, output and command. */
export interface BuildPart {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly output: string;
  readonly command: () => string[];
}
/** Every part of the build. */
export const PARTS: readonly BuildPart[];
/** The digest of a part's inputs under `root`. */
export function inputsDigest(root: string, part: BuildPart): string;
/**
 * Why a part must be built, or undefined when its build is current: by the inputs' recorded listing
 * (paths, sizes, modification times) when it holds, otherwise by their digest (then listed again).
 */
export function staleness(root: string, part: BuildPart): string | undefined;
/** Builds a part (through `run`) and records the digest of its inputs (the next current check records their listing). */
export function buildPart(root: string, part: BuildPart, run?: (argv: string[]) => void | Promise<void>): Promise<void>;
/** Builds the parts named (all when none is), or only the stale ones; the parts build at the same time. */
export function buildParts(names?: readonly string[], options?: { ifStale?: boolean }): Promise<void>;
