import { describe, expect, it } from 'vitest';
import { approverRight, effectivePermissions, entityLevel, type EntityRelation } from '../../src/model/permissions.js';

/** docs/contract.md §6: the caller's level on one entity, given their roles and how they relate to it. */
const DEFAULT = effectivePermissions(['default'], []);
const INFRA = effectivePermissions(['infra'], []);
const SUPER = effectivePermissions(['super'], []);
const NOBODY: EntityRelation = { owned: false, ownerRole: null, grantLevels: [] };
const ownedBy = (ownerRole: 'member' | 'lead' | null, grantLevels: EntityRelation['grantLevels'] = []): EntityRelation => ({
  owned: true,
  ownerRole,
  grantLevels,
});

describe('the level on one entity', () => {
  it('is the kind-level permission when nothing else ties the caller to it', () => {
    expect(entityLevel(DEFAULT, 'template', NOBODY)).toBe('read');
    expect(entityLevel(INFRA, 'template', ownedBy(null))).toBe('write');
    expect(entityLevel(SUPER, 'secret', ownedBy(null))).toBe('admin');
    expect(entityLevel([], 'template', NOBODY)).toBeNull();
  });

  it('gives members of the owning team write and its leads admin', () => {
    expect(entityLevel(DEFAULT, 'template', ownedBy('member'))).toBe('write');
    expect(entityLevel(DEFAULT, 'template', ownedBy('lead'))).toBe('admin');
    expect(entityLevel(INFRA, 'template', ownedBy('lead'))).toBe('admin');
  });

  it('gives a team its members read and its leads admin of the team itself', () => {
    expect(entityLevel([], 'team', ownedBy('member'))).toBe('read');
    expect(entityLevel([], 'team', ownedBy('lead'))).toBe('admin');
  });

  it('takes the highest grant to the caller or their teams', () => {
    expect(entityLevel(DEFAULT, 'template', ownedBy(null, ['read', 'write']))).toBe('write');
    expect(entityLevel([], 'template', ownedBy(null, ['admin']))).toBe('admin');
    expect(entityLevel(INFRA, 'template', ownedBy(null, ['read']))).toBe('write');
  });

  it('keeps an owned secret or integration from the kind-level read, not from its write', () => {
    expect(entityLevel(DEFAULT, 'secret', ownedBy(null))).toBeNull();
    expect(entityLevel(DEFAULT, 'integration', ownedBy(null))).toBeNull();
    expect(entityLevel(DEFAULT, 'secret', NOBODY)).toBe('read');
    expect(entityLevel(DEFAULT, 'secret', ownedBy('member'))).toBe('write');
    expect(entityLevel(DEFAULT, 'secret', ownedBy(null, ['read']))).toBe('read');
    expect(entityLevel(INFRA, 'secret', ownedBy(null))).toBe('write');
    // Other kinds stay readable by everyone who reads the kind.
    expect(entityLevel(DEFAULT, 'template', ownedBy(null))).toBe('read');
  });
});

describe('the right to decide a resource request', () => {
  const template = (relation: EntityRelation, ownerName: string | null = 'payments') => ({ ...relation, ownerName });

  it('belongs to resource:admin whatever owns the template', () => {
    expect(approverRight(SUPER, template(ownedBy(null)))).toBe('resource:admin');
  });

  it("belongs to the leads of the template's team, not its members, when a team owns it", () => {
    expect(approverRight(DEFAULT, template(ownedBy('lead')))).toBe('lead of team payments');
    expect(approverRight(DEFAULT, template(ownedBy('member')))).toBeUndefined();
    // resource:write alone no longer decides for an owned template.
    expect(approverRight(INFRA, template(ownedBy(null)))).toBeUndefined();
    expect(approverRight(DEFAULT, template(ownedBy(null, ['admin'])))).toBe('admin on the template');
  });

  it('stays with resource:write when no team owns the template', () => {
    expect(approverRight(INFRA, template(NOBODY, null))).toBe('resource:write');
    expect(approverRight(DEFAULT, template(NOBODY, null))).toBeUndefined();
  });
});
