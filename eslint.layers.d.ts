import type { Linter } from 'eslint';

/** One layer of src/: its name, its files (globs) and what it holds. */
export interface Layer {
  readonly name: string;
  readonly files: readonly string[];
  readonly what: string;
}

/** The layers in order, lowest first. */
export declare const LAYERS: readonly Layer[];
/** The layers (and `main`) that files of a layer must not import. */
export declare function forbiddenFor(layer: string): string[];
/** The flat-config objects that encode the layering. */
export declare const layerConfigs: Linter.Config[];
