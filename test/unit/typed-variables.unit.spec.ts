import { describe, expect, it } from 'vitest';
import { checkVariables, validationInput, valueProblem, variableTypeOf } from '../../src/model/variable-values.js';
import type { SourceCodeVariable } from '../../src/model/source-code-version.js';

const declared = (over: Partial<SourceCodeVariable> & { name: string }): SourceCodeVariable => ({
  type: 'string',
  required: false,
  default: null,
  description: '',
  sensitive: false,
  ...over,
});

describe('typed variables', () => {
  it('reads the six types, and older OpenTofu type expressions by their kind', () => {
    expect(['string', 'number', 'bool', 'list', 'map', 'enum'].map(variableTypeOf)).toEqual([
      'string',
      'number',
      'bool',
      'list',
      'map',
      'enum',
    ]);
    expect(['list(string)', 'set(number)', 'tuple([string, number])', 'map(string)', 'object({ a = string })'].map(variableTypeOf)).toEqual(
      ['list', 'list', 'list', 'map', 'map'],
    );
    expect(variableTypeOf('any')).toBeUndefined();
  });

  it('judges a value by its type, then by its rule, with the rule’s own message when it has one', () => {
    expect(valueProblem({ type: 'number' }, '3')).toBe('must be a number');
    expect(valueProblem({ type: 'number' }, Number.NaN)).toBe('must be a number');
    expect(valueProblem({ type: 'map' }, [])).toBe('must be a map (a JSON object)');
    expect(valueProblem({ type: 'list', validation: { max: 1 } }, [1, 2])).toBe('must be at most 1 entries');
    expect(valueProblem({ type: 'map', validation: { min: 1 } }, {})).toBe('must be at least 1 keys');
    expect(valueProblem({ type: 'string', validation: { regex: 't[0-9]', message: 'a t-shirt size such as t3' } }, 'xl')).toBe(
      'a t-shirt size such as t3',
    );
    // The regex is anchored: a match inside the value is not enough.
    expect(valueProblem({ type: 'string', validation: { regex: '[a-z]+' } }, 'abc1')).toBe('must match [a-z]+');
    expect(valueProblem({ type: 'any' }, { anything: true })).toBeUndefined();
  });

  it('takes one of an enum’s declared values, and names them when given another', () => {
    const size = { type: 'enum', validation: { values: ['small', 'medium', 'large'] } };
    expect(valueProblem(size, 'medium')).toBeUndefined();
    expect(valueProblem(size, 'huge')).toBe('must be one of small, medium, large');
    expect(valueProblem(size, 2)).toBe('must be a string');
    expect(valueProblem({ ...size, validation: { ...size.validation, message: 'pick a t-shirt size' } }, 'XL')).toBe('pick a t-shirt size');
  });

  it('refuses a declared pattern whose matching time grows faster than the value, saying why', () => {
    const problem = (regex: string) => validationInput.safeParse({ regex }).error?.issues.map((issue) => issue.message);
    for (const regex of ['(a|a)*b', '(a+)+b', '[a-z]+[a-z]+', '(.*)*x']) {
      expect(problem(regex)?.[0], regex).toMatch(
        /^(may take super-linear time to match: two parts of it can match the same text|is too complex to prove safe)/,
      );
    }
    for (const regex of ['[a-z0-9-]{3,63}', 't[0-9]', '[a-z]{2}-[a-z]+-\\d', '(?:a|b)*c', 'v\\d+\\.\\d+\\.\\d+'])
      expect(problem(regex), regex).toBeUndefined();
  });

  it('never runs a stored pattern that backtracks (a version declared before patterns were analysed)', () => {
    expect(valueProblem({ type: 'string', validation: { regex: '(a|a)*b' } }, 'a'.repeat(40))).toBe(
      'cannot be checked: the declared pattern (a|a)*b may take super-linear time to match; its source code version must declare a ' +
        'simpler one',
    );
  });

  it('names every unknown, missing, mistyped or clear-text sensitive variable once, in the order given then declared', () => {
    const declarations = [
      declared({ name: 'region', required: true }),
      declared({ name: 'size', type: 'number', required: true, default: 1 }),
      declared({ name: 'password', sensitive: true }),
    ];
    expect(
      checkVariables(
        declarations,
        [
          { name: 'password', value: 'x', sensitive: false },
          { name: 'zone', value: 'a', sensitive: false },
        ],
        'vpc:v1',
      ),
    ).toEqual([
      { field: 'variables.password', message: 'is declared sensitive: send it with sensitive: true' },
      { field: 'variables.zone', message: 'is not a variable of source code version vpc:v1' },
      { field: 'variables.region', message: 'is required' },
    ]);
    expect(checkVariables(declarations, [{ name: 'region', value: 'eu', sensitive: false }], 'vpc:v1')).toEqual([]);
  });
});
