// Query-string parameters (`?limit=10`): a parameter given twice, or text that is not of the
// parameter's type, is a 400 as in GridDB's web API (Spring's type mismatch).

import { badRequest } from '../errors/webapi-error.ts';

type Query = Record<string, string | string[] | undefined>;

export function queryText(query: unknown, name: string): string | undefined {
  const value = (query as Query | undefined)?.[name];
  if (Array.isArray(value)) throw badRequest(`Parameter '${name}' is given more than once`);
  return value;
}

export function queryInteger(query: unknown, name: string): number | undefined {
  const text = queryText(query, name);
  if (text === undefined) return undefined;
  if (!/^[+-]?\d{1,15}$/.test(text.trim())) {
    throw badRequest(`Parameter '${name}' must be an integer, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}

export function queryChoice<T extends string>(
  query: unknown,
  name: string,
  choices: readonly T[],
): T | undefined {
  const text = queryText(query, name);
  if (text === undefined) return undefined;
  const choice = choices.find((c) => c === text);
  if (choice === undefined) {
    throw badRequest(`Parameter '${name}' must be one of ${choices.join(', ')}, not ` +
      JSON.stringify(text));
  }
  return choice;
}
