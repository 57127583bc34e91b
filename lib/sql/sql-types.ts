// The type names SQL accepts for a column or a CAST, mapped to the types the store keeps (§5.2):
// the exact storable names map to themselves; any other name maps by the first matching rule,
// case-insensitively, as SQLite's affinity rules do; what matches no rule (DECIMAL, NUMERIC, DATE)
// is refused. GEOMETRY and arrays cannot be declared in SQL.

export const SQL_COLUMN_TYPES = [
  'BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'TIMESTAMP(6)',
  'TIMESTAMP(9)', 'STRING', 'BLOB',
] as const;
/** A storable type; TIMESTAMP is millisecond precision (what TIMESTAMP(3) declares). */
export type SqlColumnType = (typeof SQL_COLUMN_TYPES)[number];

const EXACT_NAMES: ReadonlySet<string> = new Set([
  'BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'STRING', 'BLOB',
]);

/** Rules after the exact names, in order: the first that matches decides. */
const TYPE_NAME_RULES: readonly { readonly matches: (name: string) => boolean;
  readonly type: SqlColumnType }[] = [
  { matches: (name) => name === 'REAL', type: 'DOUBLE' },
  { matches: (name) => name === 'TINYINT', type: 'BYTE' },
  { matches: (name) => name === 'SMALLINT', type: 'SHORT' },
  { matches: (name) => name === 'BIGINT', type: 'LONG' },
  { matches: (name) => name.includes('INT'), type: 'INTEGER' },
  { matches: (name) => /CHAR|CLOB|TEXT/.test(name), type: 'STRING' },
  { matches: (name) => name.includes('BLOB'), type: 'BLOB' },
  { matches: (name) => /REAL|DOUB/.test(name), type: 'DOUBLE' },
  { matches: (name) => name.includes('FLOA'), type: 'FLOAT' },
];

/**
 * The storable type of a declared type name (words joined by one space, any case) and its
 * precision argument if one was written; a string saying why not otherwise.
 */
export function sqlColumnType(declaredName: string, precision: bigint | undefined):
  SqlColumnType | { readonly problem: string } {
  const name = declaredName.toUpperCase();
  if (name === 'TIMESTAMP') {
    if (precision === undefined || precision === 3n) return 'TIMESTAMP';
    if (precision === 6n) return 'TIMESTAMP(6)';
    if (precision === 9n) return 'TIMESTAMP(9)';
    return { problem: `TIMESTAMP takes precision 3, 6 or 9, not ${precision}` };
  }
  if (EXACT_NAMES.has(name)) return name as SqlColumnType;
  const rule = TYPE_NAME_RULES.find((candidate) => candidate.matches(name));
  if (rule !== undefined) return rule.type;
  return {
    problem: `type ${declaredName} is not supported; the storable types are ` +
      'BOOL, BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE, TIMESTAMP[(3|6|9)], STRING, BLOB',
  };
}
