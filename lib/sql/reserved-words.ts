// GridDB's reserved words (surface spec §5.12). GridDB's parser is SQLite's lemon grammar, where
// some of these "fall back" to plain names when they cannot be read as keywords: the spec's own
// example `CREATE TABLE myTable (key INTEGER PRIMARY KEY, ...)` names a column KEY. SOFT_KEYWORDS
// are the §5.12 words on SQLite's fallback list that play no part in an expression here: they may
// be written unquoted wherever a name goes. Every other reserved word needs "double quotes".

import { assert } from '../base/assert.ts';

const RESERVED_WORD_LIST = `
ABORT ACTION AFTER ALL ANALYZE AND AS ASC BEGIN BETWEEN BY CASE CAST COLLATE COLUMN COMMIT CONFLICT
CREATE CROSS DATABASE DAY DELETE DESC DISTINCT DROP ELSE END ESCAPE EXCEPT EXCLUSIVE EXISTS EXPLAIN
EXTRACT FALSE FOR FROM GLOB GRANT GROUP HASH HAVING HOUR IDENTIFIED IF IN INDEX INITIALLY INNER
INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LEFT LIKE LIMIT MATCH MILLISECOND MINUTE MONTH
NATURAL NO NOT NOTNULL NULL OF OFFSET ON OR ORDER OUTER PARTITION PARTITIONS PASSWORD PLAN PRAGMA
PRIMARY QUERY RAISE REGEXP RELEASE REPLACE RESTRICT REVOKE RIGHT ROLLBACK ROW SECOND SELECT SET
TABLE THEN TIMESTAMPADD TIMESTAMPDIFF TO TRANSACTION TRUE UNION UPDATE USER USING VALUES VIEW
VIRTUAL WHEN WHERE WITHOUT XOR YEAR`;

export const RESERVED_WORDS: ReadonlySet<string> =
  new Set(RESERVED_WORD_LIST.trim().split(/\s+/));

export const SOFT_KEYWORDS: ReadonlySet<string> = new Set([
  'ABORT', 'ACTION', 'AFTER', 'BEGIN', 'CONFLICT', 'DATABASE', 'EXCLUSIVE', 'INITIALLY', 'INSTEAD',
  'KEY', 'MATCH', 'NO', 'OF', 'PLAN', 'PRAGMA', 'QUERY', 'RAISE', 'RELEASE', 'RESTRICT', 'ROW',
  'VIEW', 'VIRTUAL', 'WITHOUT',
]);

/**
 * Reserved words that still name a function when `(` follows: REPLACE(str, ...), LIKE(p, s),
 * GLOB(p, s), EXTRACT(YEAR, ts), TIMESTAMPADD(...), TIMESTAMPDIFF(...) (§5.8).
 */
export const FUNCTION_KEYWORDS: ReadonlySet<string> = new Set([
  'REPLACE', 'LIKE', 'GLOB', 'EXTRACT', 'TIMESTAMPADD', 'TIMESTAMPDIFF',
]);

/** A word needs no quotes as a name: not reserved, or a soft keyword. Case-insensitive. */
export function isPlainName(word: string): boolean {
  const upper = word.toUpperCase();
  return !RESERVED_WORDS.has(upper) || SOFT_KEYWORDS.has(upper);
}

for (const word of SOFT_KEYWORDS) assert(RESERVED_WORDS.has(word));
for (const word of FUNCTION_KEYWORDS) assert(RESERVED_WORDS.has(word));
