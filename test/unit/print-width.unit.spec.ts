import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Prettier keeps code within its print width but leaves string literals and comments as long as they
// are written; this keeps those within it too, for the service's and the web UI's sources. Shipped
// migrations are frozen (their text is what ran), so they keep the width they were written with.
const PRINT_WIDTH = (JSON.parse(readFileSync('.prettierrc.json', 'utf8')) as { printWidth: number }).printWidth;
const FROZEN = `src${path.sep}storage${path.sep}migrations${path.sep}`;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

describe('the print width', () => {
  it(`holds every line of src/ and web/ within ${PRINT_WIDTH} characters`, () => {
    const over = [...sources('src'), ...sources('web')]
      .filter((file) => !file.startsWith(FROZEN))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (line.length > PRINT_WIDTH ? [`${file}:${index + 1} (${line.length})`] : [])),
      );
    expect(over).toEqual([]);
  });
});
