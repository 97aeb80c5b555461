#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { generateSigningJwk } from '../auth/tokens.js';

/** Prints fresh keys for a PostgreSQL/EventStoreDB deployment, as shell assignments. */
const jwk = await generateSigningJwk();
process.stdout.write(`SECRET_KEY='${randomBytes(32).toString('base64')}'\nTOKEN_SIGNING_KEY='${JSON.stringify(jwk)}'\n`);
