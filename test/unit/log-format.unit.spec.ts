import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, wantsPrettyLines, type LogFormat } from '../../src/log.js';

/** A destination that records what it was sent; `isTTY` as a terminal's stdout has it. */
function destination(isTTY: boolean): { stream: NodeJS.WritableStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  Object.assign(stream, { isTTY });
  return { stream, text: () => chunks.join('') };
}

function logOnce(format: LogFormat, isTTY: boolean): string {
  const out = destination(isTTY);
  const log = createLogger({ level: 'info', format, destination: out.stream });
  log.info({ projection: 'templates', password: 'raw-password-value' }, 'projection caught up');
  return out.text();
}

describe('log lines: readable on a terminal, JSON elsewhere', () => {
  it('writes one JSON object per line when the output is not a terminal (auto)', () => {
    const line = JSON.parse(logOnce('auto', false).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, msg: 'projection caught up', projection: 'templates', password: '[redacted]' });
  });

  it('writes readable lines through pino-pretty when the output is a terminal (auto)', () => {
    const text = logOnce('auto', true);
    expect(() => JSON.parse(text.trim()) as unknown).toThrow();
    expect(text).toContain('INFO');
    expect(text).toContain('projection caught up');
    expect(text).toContain('templates');
    // Redaction happens before the pretty printer.
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('raw-password-value');
  });

  it('lets LOG_FORMAT force either way', () => {
    expect(() => JSON.parse(logOnce('json', true).trim()) as unknown).not.toThrow();
    expect(logOnce('pretty', false)).toContain('INFO');
    expect(wantsPrettyLines('pretty', destination(false).stream)).toBe(true);
    expect(wantsPrettyLines('json', destination(true).stream)).toBe(false);
  });
});
