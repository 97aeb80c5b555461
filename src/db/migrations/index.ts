import { sql as eventStore } from './001-event-store.js';
import { sql as templates } from './002-templates.js';
import { sql as appendFunction } from './003-append-function.js';

export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/** Applied in this order, each once. Never edit a shipped migration: add the next one. */
export const migrations: readonly Migration[] = [
  { id: '001-event-store', sql: eventStore },
  { id: '002-templates', sql: templates },
  { id: '003-append-function', sql: appendFunction },
];
