#!/usr/bin/env node
// `npm run dev`: the service from source, restarted on every change (tsx watch), and the web UI from
// Vite's dev server with hot reload on DEV_UI_PORT (default 5173), which proxies /api (and its
// WebSockets) to the service on PORT (default 8080). Open http://localhost:5173. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const uiPort = process.env.DEV_UI_PORT ?? '5173';
const tsx = path.join(path.dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');
const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');

const children = [
  spawn(process.execPath, [tsx, 'watch', '--clear-screen=false', 'src/main.ts'], { cwd: root, stdio: 'inherit' }),
  spawn(process.execPath, [vite, '-c', 'web/vite.config.ts', '--port', uiPort, '--strictPort'], { cwd: root, stdio: 'inherit' }),
];
let stopping = false;
const stop = (code) => {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined))).then(
    () => process.exit(code),
  );
};
for (const child of children) child.once('exit', (code) => stop(code ?? 1));
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
