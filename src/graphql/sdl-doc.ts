/** A GraphQL description (a block string) at `indent`, before the definition it describes. */
export const doc = (text: string, indent = ''): string => `${indent}"""\n${indent}${text.replaceAll('"""', '\\"""')}\n${indent}"""\n`;

/** One field of Query, Mutation or Subscription: its description, then its signature. */
export const member = (description: string, signature: string): string => `${doc(description, '  ')}  ${signature}\n`;
