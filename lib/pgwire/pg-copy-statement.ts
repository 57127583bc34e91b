// The COPY statement as the PostgreSQL protocol takes it: `COPY table [(columns)] FROM STDIN`,
// `COPY table [(columns)] TO STDOUT` and `COPY (query) TO STDOUT`, with PostgreSQL's options in
// either spelling: `WITH (FORMAT csv, DELIMITER ';', NULL '', HEADER, QUOTE '"', ESCAPE '"')` or
// the older `WITH CSV HEADER DELIMITER AS ';' NULL AS ''` that psql's \copy passes on. Files on
// the server (FROM 'file', TO 'file', PROGRAM) are refused (0A000). `FORMAT binary` (or the old
// `BINARY`) takes no other option but FREEZE and ENCODING, as in PostgreSQL (pg-copy-binary.ts).

import { PgError, pgError } from './pg-errors.ts';

export interface PgCopyOptions {
  format: 'text' | 'csv' | 'binary';
  delimiter: string;
  nullText: string;
  header: boolean;
  quote: string;
  escape: string;
}

export type PgCopyStatement =
  | { direction: 'in'; table: string; columns: string[] | undefined; options: PgCopyOptions }
  | { direction: 'out'; table: string; columns: string[] | undefined; query: undefined; options: PgCopyOptions }
  | { direction: 'out'; table: undefined; columns: undefined; query: string; options: PgCopyOptions };

function syntax(message: string): PgError {
  return new PgError(pgError('42601', `COPY: ${message}`));
}

/** Words, quoted identifiers, string literals and single punctuation, in order. */
class Tokens {
  private at = 0;
  constructor(private readonly text: string) {}

  private skipSpace(): void {
    while (this.at < this.text.length && /[\s;]/.test(this.text[this.at]!)) this.at++;
  }

  get done(): boolean {
    this.skipSpace();
    return this.at >= this.text.length;
  }

  peek(): string {
    const at = this.at;
    const token = this.next();
    this.at = at;
    return token;
  }

  next(): string {
    this.skipSpace();
    const start = this.at;
    const c = this.text[start];
    if (c === undefined) return '';
    if (c === '"' || c === "'") {
      let i = start + 1;
      for (;;) {
        if (i >= this.text.length) throw syntax(`unterminated ${c === '"' ? 'identifier' : 'string'}`);
        if (this.text[i] === c) {
          if (this.text[i + 1] === c) { i += 2; continue; }
          break;
        }
        i++;
      }
      this.at = i + 1;
      return this.text.slice(start, this.at);
    }
    if (/[(),=]/.test(c)) {
      this.at++;
      return c;
    }
    let i = start;
    while (i < this.text.length && !/[\s(),=;"']/.test(this.text[i]!)) i++;
    this.at = i;
    return this.text.slice(start, i);
  }

  /** The text inside balanced parentheses that start here (quotes respected). */
  parenthesized(): string {
    this.skipSpace();
    if (this.text[this.at] !== '(') throw syntax('expected (');
    let depth = 0;
    let quote = '';
    for (let i = this.at; i < this.text.length; i++) {
      const c = this.text[i]!;
      if (quote !== '') {
        if (c === quote) quote = '';
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        const inner = this.text.slice(this.at + 1, i);
        this.at = i + 1;
        return inner;
      }
    }
    throw syntax('unbalanced parentheses');
  }

  expect(word: string): void {
    const token = this.next();
    if (token.toUpperCase() !== word) throw syntax(`expected ${word}, found "${token}"`);
  }
}

function identifier(token: string): string {
  if (token === '' || /^[(),=']/.test(token)) throw syntax(`expected a name, found "${token}"`);
  return token.startsWith('"') ? token.slice(1, -1).replace(/""/g, '"') : token;
}

function literal(token: string, what: string): string {
  if (!token.startsWith("'")) throw syntax(`${what} must be a quoted string, found "${token}"`);
  return token.slice(1, -1).replace(/''/g, "'");
}

function oneCharacter(value: string, what: string): string {
  if ([...value].length !== 1) throw new PgError(pgError('22023', `COPY ${what} must be a single one-byte character`));
  return value;
}

function booleanOption(token: string | undefined): boolean {
  if (token === undefined) return true;
  const lower = token.replace(/^'(.*)'$/, '$1').toLowerCase();
  if (['true', 'on', '1'].includes(lower)) return true;
  if (['false', 'off', '0'].includes(lower)) return false;
  throw new PgError(pgError('0A000', `COPY HEADER ${token} is not supported (true or false)`));
}

export function parseCopyStatement(text: string): PgCopyStatement {
  const tokens = new Tokens(text);
  tokens.expect('COPY');
  let table: string | undefined;
  let query: string | undefined;
  let columns: string[] | undefined;
  if (tokens.peek() === '(') {
    query = tokens.parenthesized();
  } else {
    table = identifier(tokens.next());
    if (tokens.peek() === '.') throw syntax('schema-qualified names are not supported');
    if (tokens.peek() === '(') {
      columns = tokens.parenthesized().split(',').map((column) => {
        const name = column.trim();
        return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
      });
      if (columns.some((column) => column === '')) throw syntax('empty column name');
    }
  }
  const direction = tokens.next().toUpperCase();
  if (direction !== 'FROM' && direction !== 'TO') throw syntax('expected FROM or TO');
  const target = tokens.next().toUpperCase();
  const wanted = direction === 'FROM' ? 'STDIN' : 'STDOUT';
  if (target !== wanted) {
    throw new PgError({ severity: 'ERROR', sqlState: '0A000',
      message: `COPY ${direction} ${target}: only COPY ${direction} ${wanted} is supported (the node reads no client's files)`,
      hint: "use psql's \\copy, which sends the file over the connection" });
  }
  const options: PgCopyOptions = { format: 'text', delimiter: '\t', nullText: '\\N', header: false, quote: '"', escape: '"' };
  const given = new Set<string>();
  let nullGiven = false;
  let delimiterGiven = false;
  const set = (name: string, value: string | undefined) => {
    const upper = name.toUpperCase();
    if (given.has(upper)) throw syntax(`conflicting or redundant option ${upper}`);
    given.add(upper);
    switch (upper) {
      case 'FORMAT': {
        const format = (value ?? '').replace(/^'(.*)'$/, '$1').toLowerCase();
        if (format !== 'text' && format !== 'csv' && format !== 'binary') {
          throw syntax(`COPY format "${format}" not recognized`);
        }
        options.format = format;
        return;
      }
      case 'DELIMITER': options.delimiter = oneCharacter(literal(value ?? '', 'DELIMITER'), 'delimiter'); delimiterGiven = true; return;
      case 'NULL': options.nullText = literal(value ?? '', 'NULL'); nullGiven = true; return;
      case 'HEADER': options.header = booleanOption(value); return;
      case 'QUOTE': options.quote = oneCharacter(literal(value ?? '', 'QUOTE'), 'quote'); return;
      case 'ESCAPE': options.escape = oneCharacter(literal(value ?? '', 'ESCAPE'), 'escape'); return;
      case 'ENCODING': {
        const encoding = literal(value ?? '', 'ENCODING').toUpperCase().replace(/[-_]/g, '');
        if (encoding !== 'UTF8') throw new PgError(pgError('0A000', 'COPY ENCODING: only UTF8 is supported'));
        return;
      }
      case 'FREEZE': return;
      default:
        throw new PgError(pgError('0A000', `COPY option ${upper} is not supported`));
    }
  };
  if (tokens.peek().toUpperCase() === 'WITH') tokens.next();
  if (tokens.peek() === '(') {
    for (const part of splitOptions(tokens.parenthesized())) {
      const inner = new Tokens(part);
      const name = inner.next();
      const value = inner.done ? undefined : inner.next();
      if (!inner.done) throw syntax(`unexpected text after option ${name}`);
      set(name, value);
    }
  } else {
    while (!tokens.done) {
      const word = tokens.next().toUpperCase();
      if (word === 'CSV') { set('FORMAT', 'csv'); continue; }
      if (word === 'BINARY') { set('FORMAT', 'binary'); continue; }
      if (word === 'HEADER') { set('HEADER', undefined); continue; }
      if (['DELIMITER', 'NULL', 'QUOTE', 'ESCAPE', 'ENCODING'].includes(word)) {
        if (tokens.peek().toUpperCase() === 'AS') tokens.next();
        set(word, tokens.next());
        continue;
      }
      if (word === 'FORCE') throw new PgError(pgError('0A000', 'COPY FORCE options are not supported'));
      throw syntax(`unexpected "${word}"`);
    }
  }
  if (!tokens.done) throw syntax('unexpected text after the options');
  if (options.format === 'binary') {
    for (const option of ['DELIMITER', 'NULL', 'HEADER', 'QUOTE', 'ESCAPE']) {
      if (given.has(option)) throw syntax(`cannot specify ${option} in BINARY mode`);
    }
  } else if (options.format === 'csv') {
    if (!delimiterGiven) options.delimiter = ',';
    if (!nullGiven) options.nullText = '';
    if (!given.has('ESCAPE')) options.escape = options.quote;
    if (options.delimiter === options.quote) throw new PgError(pgError('22023', 'COPY delimiter and quote must be different'));
  } else {
    if (given.has('QUOTE') || given.has('ESCAPE')) throw new PgError(pgError('0A000', 'COPY QUOTE and ESCAPE are available only in CSV mode'));
    if (options.header) throw new PgError(pgError('0A000', 'COPY HEADER is available only in CSV mode'));
    if (options.delimiter === '\\' || /[a-z0-9.\r\n]/i.test(options.delimiter)) {
      throw new PgError(pgError('22023', `COPY delimiter cannot be "${options.delimiter}" in text format`));
    }
  }
  if (options.nullText.includes(options.delimiter) || /[\r\n]/.test(options.nullText)) {
    throw new PgError(pgError('22023', 'COPY NULL cannot contain the delimiter or a newline'));
  }
  if (direction === 'FROM') {
    if (table === undefined) throw syntax('COPY (query) FROM is not valid');
    return { direction: 'in', table, columns, options };
  }
  if (query !== undefined) return { direction: 'out', table: undefined, columns: undefined, query, options };
  return { direction: 'out', table: table!, columns, query: undefined, options };
}

/** Splits `a, b 'x,y', c` at the commas outside quotes. */
function splitOptions(text: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') { if (c === quote) quote = ''; continue; }
    if (c === "'" || c === '"') quote = c;
    else if (c === ',') { parts.push(text.slice(start, i)); start = i + 1; }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}
