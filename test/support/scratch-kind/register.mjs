import { register } from 'node:module';

// `node --import tsx --import ./register.mjs …`: after tsx, so its resolution runs first (./hooks.mjs).
register('./hooks.mjs', import.meta.url);
