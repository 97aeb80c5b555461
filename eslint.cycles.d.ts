import type { Linter } from 'eslint';

/** The flat-config entries of the import-cycle rule (eslint.cycles.js). */
export declare const cycleConfigs: Linter.Config[];
