import { COMMON_WRITABLE, isNullable, type EntityDeclaration, type FieldDeclaration } from '../model/entity.js';
import { userEntity } from '../model/user.js';
import { authProviderEntity } from '../model/auth-provider.js';
import { isClientWritten, type AccountDeclaration } from '../model/account.js';
import { AppError, notFound } from '../errors.js';
import { CATALOG_ACTIONS, LIFECYCLE_ACTS } from '../edge/writes/catalog.js';
import type { Writes } from '../edge/writes/registry.js';
import { USER_ACTIONS } from '../edge/writes/users.js';
import type { WriteCall, WriteOperations } from '../edge/writes/write.js';
import { GRAPHQL_TYPE_OF_KIND, type TypeName } from './model.js';
import { DECLARED_ENTITIES, declarationOf } from '../model/catalog.js';

/**
 * The GraphQL mutations of every REST write (docs/contract.md §4): `create<Type>`, `update<Type>`
 * (`revision` is If-Match), `delete<Type>` and `<type>Action`, each running the same write
 * operation as the REST route (src/edge/writes), so validation, permissions, uniqueness, audit and
 * read-your-writes are the same. Inputs are derived from the declarations where there is one.
 */

/** One GraphQL input field: its type and description. */
interface InputField {
  readonly type: string;
  readonly description: string;
}

/** A kind with mutations: its GraphQL type, its writes, and its create and update inputs. */
export interface MutationEntity {
  readonly type: TypeName;
  readonly kind: Exclude<keyof Writes, 'personal_access_token'>;
  readonly createInput: Readonly<Record<string, InputField>>;
  readonly updateInput: Readonly<Record<string, InputField>>;
  /** The values of `<Type>Action` (the write operations' actions; a test holds them equal). */
  readonly actions: readonly string[];
  /** Whether `delete<Type>` is offered (users are deactivated, never deleted). */
  readonly deletable: boolean;
  /** The noun in descriptions. */
  readonly noun: string;
}

const GRAPHQL_INPUT: Record<FieldDeclaration['kind'], string> = { ...GRAPHQL_TYPE_OF_KIND, id: 'UUID', idList: '[UUID!]' };

/**
 * A declared entity's inputs: every writable field with its declared description (required ones say
 * so; the write operation enforces it, naming the field as REST does), plus `status` on create for
 * enable/disable kinds. Every input field is nullable so that one validation path answers.
 */
function declaredInputs(entity: EntityDeclaration): Pick<MutationEntity, 'createInput' | 'updateInput'> {
  const update: Record<string, InputField> = {
    description: { type: 'String', description: 'A free-text description.' },
    labels: { type: '[String!]', description: 'Labels for filtering.' },
  };
  const create: Record<string, InputField> = {};
  for (const [name, field] of Object.entries(entity.fields)) {
    if (field.writable === false) continue;
    update[name] = { type: GRAPHQL_INPUT[field.kind], description: field.description };
    const required = field.required ? ' Required.' : field.default !== undefined ? ` Default: ${JSON.stringify(field.default)}.` : '';
    create[name] = { type: GRAPHQL_INPUT[field.kind], description: `${field.description}${required}` };
  }
  if (!entity.lifecycle) create.status = { type: 'String', description: '`enabled` (the default) or `disabled`.' };
  for (const name of Object.keys(COMMON_WRITABLE)) create[name] ??= update[name] as InputField;
  return { createInput: { ...create }, updateInput: update };
}

/** A declared kind's mutations, from its declaration. */
const declared = (entity: EntityDeclaration): MutationEntity => ({
  type: entity.name as TypeName,
  kind: entity.kind as MutationEntity['kind'],
  noun: entity.kind.replaceAll('_', ' '),
  actions: entity.actions ?? (entity.lifecycle ? LIFECYCLE_ACTS : CATALOG_ACTIONS),
  deletable: true,
  ...declaredInputs(entity),
});

const text = (description: string): InputField => ({ type: 'String', description });

/**
 * A declared account's inputs: the fields a client writes on create (required ones say so) and the
 * updatable ones on update (with `immutable`, the immutable ones too, accepted only unchanged, as
 * the REST PATCH), plus what the write operation adds (a password). Nullable throughout, as the
 * declared entities' inputs.
 */
function accountInputs(account: AccountDeclaration, added: Readonly<Record<string, InputField>>, options: { immutable?: boolean } = {}) {
  const input = (field: FieldDeclaration, suffix = ''): InputField => ({
    type: GRAPHQL_INPUT[field.kind],
    description: `${field.description}${suffix}`,
  });
  const create: Record<string, InputField> = {};
  for (const [name, field] of Object.entries(account.fields)) {
    if (!isClientWritten(field)) continue;
    create[name] = input(
      field,
      field.required ? ' Required.' : field.default !== undefined ? ` Default: ${JSON.stringify(field.default)}.` : '',
    );
  }
  const update: Record<string, InputField> = {};
  for (const [name, field] of Object.entries(account.fields)) {
    if (!isClientWritten(field)) continue;
    if (options.immutable === true && field.immutable === true) update[name] = input(field, ' Accepted only unchanged.');
    else if (account.updatable.includes(name)) update[name] = input(field, isNullable(field) ? ' Null clears it.' : '');
  }
  return { createInput: { ...create, ...added }, updateInput: { ...update, ...added } };
}

/** Every kind with mutations, in schema order. */
export const MUTATION_ENTITIES: readonly MutationEntity[] = [
  ...DECLARED_ENTITIES.map(declared),
  {
    type: 'User',
    kind: 'user',
    noun: 'user',
    actions: USER_ACTIONS,
    deletable: false,
    ...accountInputs(userEntity, { password: text('At least 12 characters, not a common password. Required on create.') }),
  },
  {
    type: 'AuthProvider',
    kind: 'auth_provider',
    noun: 'auth provider',
    actions: CATALOG_ACTIONS,
    deletable: true,
    ...accountInputs(authProviderEntity, {}, { immutable: true }),
  },
];

/** `Template` → `template`, `SourceCodeVersion` → `sourceCodeVersion`. */
export const lowerFirst = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

/** The GraphQL enum of a kind's actions. */
export const actionEnumOf = (entity: MutationEntity): string => `${entity.type}Action`;

/** `revision` (1-based, as ETags show it) → the stream revision the write expects. */
export function expectedRevision(revision: unknown): bigint | undefined {
  if (revision === undefined || revision === null) return undefined;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) {
    throw new AppError('VALIDATION', 'revision must be a positive revision number, as the entity shows it', {
      errors: [{ field: 'revision', message: 'must be a positive integer' }],
    });
  }
  return BigInt(revision - 1);
}

/** One mutation: runs the write, then answers (the written entity loaded for the field's selection, or true). */
export type MutationResolve = (
  writes: WriteOperations,
  call: WriteCall,
  args: Readonly<Record<string, unknown>>,
  load: (id: string) => Promise<unknown>,
) => Promise<unknown>;

/**
 * An input with its declared enum values in this contract's case: GraphQL clients conventionally
 * write enum values in upper case (the upstream project's UI sends `lifecycleState: "ACTIVE"`), and
 * these fields are strings here, so a value that differs from a declared one only in case is taken
 * as that one (docs/contract.md §12). Anything else goes on to the write's validation as sent.
 */
export function enumsInOurCase(entity: MutationEntity, input: unknown): unknown {
  const declaration = declarationOf(entity.kind);
  if (!declaration || typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const fixed: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [name, field] of Object.entries(declaration.fields)) {
    const value = fixed[name];
    if (field.kind !== 'enum' || typeof value !== 'string') continue;
    fixed[name] = field.values.find((declared) => declared.toLowerCase() === value.toLowerCase()) ?? value;
  }
  return fixed;
}

/**
 * The action and input of a `{kind}Action` call: `action` when given, else the upstream's
 * `input.action` (the rest of `input` is the action's input). Either must name one of the kind's actions.
 */
export function actionOf(entity: MutationEntity, args: Readonly<Record<string, unknown>>): { action: string; input: unknown } {
  if (typeof args.action === 'string') return { action: args.action, input: args.input };
  const input = args.input;
  const named =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>).action : undefined;
  const action = typeof named === 'string' ? entity.actions.find((known) => known.toLowerCase() === named.toLowerCase()) : undefined;
  if (action === undefined) {
    throw new AppError('VALIDATION', 'invalid arguments: action', {
      errors: [
        {
          field: typeof named === 'string' ? 'input.action' : 'action',
          message: `give action (or input.action), one of ${entity.actions.join(', ')}`,
        },
      ],
    });
  }
  const { action: _named, ...rest } = input as Record<string, unknown>;
  return { action, input: Object.keys(rest).length > 0 ? rest : undefined };
}

/** The mutations of one kind, by field name. */
export function kindMutations(entity: MutationEntity): Record<string, MutationResolve> {
  const answer = async (id: string, load: (id: string) => Promise<unknown>): Promise<unknown> => {
    const object = await load(id);
    // Written but not readable by the caller (a write grant without read): the write stands, the answer says so.
    if (object === null || object === undefined) throw notFound(`${entity.noun} not found`);
    return object;
  };
  const mutations: Record<string, MutationResolve> = {
    [`create${entity.type}`]: async (writes, call, args, load) =>
      answer((await writes.create(call, enumsInOurCase(entity, args.input))).id, load),
    [`update${entity.type}`]: async (writes, call, args, load) =>
      answer((await writes.update(call, args.id as string, enumsInOurCase(entity, args.input))).id, load),
    [`${lowerFirst(entity.type)}Action`]: async (writes, call, args, load) => {
      const { action, input } = actionOf(entity, args);
      return answer((await writes.act(call, args.id as string, action, input)).id, load);
    },
  };
  if (entity.deletable) {
    mutations[`delete${entity.type}`] = async (writes, call, args) => {
      if (!writes.remove) throw new Error(`${entity.type} has no delete`);
      await writes.remove(call, args.id as string);
      return true;
    };
  }
  return mutations;
}
