import { getOperationAST, getVariableValues, type DocumentNode, type GraphQLSchema } from 'graphql';

/**
 * Mercurius coerces a request's variables before running a document, except on the one run where it
 * compiles the document (graphql-jit), whose own coercion errors differ in text and shape. Coercing
 * here, before every execution, answers bad variables the same on every run: graphql-js's errors, in
 * Mercurius' validation error, which the error formatter unwraps (a 400 like any invalid document).
 */
export function refuseInvalidVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  operationName: string | undefined,
): void {
  const operation = getOperationAST(document, operationName);
  // No single operation to run: graphql-js reports that itself when executing.
  if (!operation?.variableDefinitions?.length) return;
  const coerced = getVariableValues(schema, operation.variableDefinitions, variables ?? {}, { maxErrors: 50 });
  if (!coerced.errors) return;
  throw Object.assign(new Error('Graphql validation error'), { code: 'MER_ERR_GQL_VALIDATION', errors: coerced.errors });
}
