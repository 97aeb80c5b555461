import type { templateEntity } from '../model/template.js';
import type { DeclaredView } from './catalog.js';

/** A template as the REST API shows it (camelCase; relations as id lists), from the declaration. */
export type TemplateView = DeclaredView<typeof templateEntity>;
