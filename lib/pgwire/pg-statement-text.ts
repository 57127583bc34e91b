// The text of what a PostgreSQL client sends, before lib/sql sees it: a simple Query cut into its
// statements at the semicolons outside quotes and comments, and the `$n` placeholders of the
// extended protocol turned into lib/sql's `?` ones, in order of appearance (`$2 … $1 … $2` reads
// parameters 2, 1, 2). Quotes: '…' (with '' inside), "…", E'…' with backslash escapes, $tag$…$tag$;
// comments: -- to the end of the line, /* … */ nested.

import { StorageError } from '../base/errors.ts';
import { SQL_PARAMETER_COUNT_MAX } from '../base/limits.ts';

interface Piece {
  kind: 'code' | 'quoted' | 'comment';
  text: string;
}

/** Cuts `text` into code, quoted and comment pieces; an unterminated one is a syntax error. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let code = '';
  let i = 0;
  const flush = () => {
    if (code !== '') out.push({ kind: 'code', text: code });
    code = '';
  };
  const unterminated = (what: string): never => {
    throw new StorageError('SQL_COMPILE_SYNTAX_ERROR', `syntax error: unterminated ${what}`);
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      flush();
      out.push({ kind: 'comment', text: text.slice(i, end < 0 ? text.length : end) });
      i = end < 0 ? text.length : end;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text.startsWith('/*', j)) { depth++; j += 2; } else if (text.startsWith('*/', j)) { depth--; j += 2; } else j++;
      }
      if (depth > 0) unterminated('/* comment');
      flush();
      out.push({ kind: 'comment', text: text.slice(i, j) });
      i = j;
    } else if (c === '\'' || c === '"') {
      const escapes = c === '\'' && i > 0 && /[eE]/.test(text[i - 1]!) && !/\w/.test(text[i - 2] ?? ' ');
      let j = i + 1;
      for (;;) {
        if (j >= text.length) unterminated(c === '"' ? 'quoted identifier' : 'quoted string');
        if (escapes && text[j] === '\\') { j += 2; continue; }
        if (text[j] === c) {
          if (text[j + 1] === c) { j += 2; continue; }
          break;
        }
        j++;
      }
      flush();
      out.push({ kind: 'quoted', text: text.slice(i, j + 1) });
      i = j + 1;
    } else if (c === '$' && /^\$([A-Za-z_]\w*)?\$/.test(text.slice(i, i + 64)) && !/\w/.test(text[i - 1] ?? ' ')) {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(text.slice(i, i + 64))![0];
      const end = text.indexOf(tag, i + tag.length);
      if (end < 0) unterminated('dollar-quoted string');
      flush();
      out.push({ kind: 'quoted', text: text.slice(i, end + tag.length) });
      i = end + tag.length;
    } else {
      code += c;
      i++;
    }
  }
  flush();
  return out;
}

/** The statements of a simple Query, each trimmed; empty ones (`;;`) left out. */
export function splitStatements(text: string, statementCountMax: number): string[] {
  const statements: string[] = [];
  let current = '';
  const push = () => {
    const trimmed = current.trim();
    if (trimmed !== '' && !/^(--[^\n]*\n?|\/\*[\s\S]*?\*\/|\s)*$/.test(trimmed)) {
      if (statements.length === statementCountMax) {
        throw new StorageError('LIMIT_EXCEEDED', `a Query message may hold at most ` +
          `${statementCountMax} statements (/sql/pgStatementsPerQueryLimit)`);
      }
      statements.push(trimmed);
    }
    current = '';
  };
  for (const piece of pieces(text)) {
    if (piece.kind !== 'code') {
      current += piece.text;
      continue;
    }
    const parts = piece.text.split(';');
    parts.forEach((part, index) => {
      current += part;
      if (index < parts.length - 1) push();
    });
  }
  push();
  return statements;
}

export interface RewrittenStatement {
  /** The text with `?` for each `$n`. */
  sql: string;
  /** For each `?` in order, the 0-based index of the `$n` parameter it reads. */
  parameterOrder: number[];
  /** The highest n of a `$n` (parameters the statement takes). */
  parameterCount: number;
}

/** `$n` → `?`, outside quotes and comments. */
export function rewriteParameters(text: string): RewrittenStatement {
  const order: number[] = [];
  let count = 0;
  const sql = pieces(text).map((piece) => {
    if (piece.kind !== 'code') return piece.text;
    return piece.text.replace(/\$(\d+)/g, (_match, digits: string) => {
      const n = Number(digits);
      if (n < 1 || n > SQL_PARAMETER_COUNT_MAX) {
        throw new StorageError('SQL_COMPILE_SYNTAX_ERROR', `there is no parameter $${digits}`);
      }
      order.push(n - 1);
      count = Math.max(count, n);
      return '?';
    });
  }).join('');
  return { sql, parameterOrder: order, parameterCount: count };
}

/** The first word of a statement, upper-case ('' for none): what kind of statement it is. */
export function firstWord(text: string): string {
  const code = pieces(text).filter((piece) => piece.kind !== 'comment').map((piece) => piece.text).join(' ');
  return (/^\s*\(*\s*([A-Za-z]+)/.exec(code)?.[1] ?? '').toUpperCase();
}

/**
 * `$n` → `literals[n - 1]`, outside quotes and comments: the text of a statement answered in the
 * connection (pg_catalog, information_schema) with its Bind's values written in, as pgJDBC's and
 * DBeaver's metadata queries pass their patterns and oids as parameters.
 */
export function inlineParameters(text: string, literals: readonly string[]): string {
  return pieces(text).map((piece) => piece.kind !== 'code' ? piece.text
    : piece.text.replace(/\$(\d+)/g, (_match, digits: string) => literals[Number(digits) - 1] ?? 'NULL')).join('');
}
