import type { EventDefinition } from './define.js';
import { referenceEvents } from './reference.js';
import { templateEvents } from './template.js';
import { uniqueEvents } from './unique.js';

/** Every event type the service writes. The codec refuses any other. */
export const allEventDefinitions: readonly EventDefinition[] = [...uniqueEvents, ...referenceEvents, ...templateEvents];
