// Optimizer hints (§5.9): the text of one `/*+ ... */` comment read into hints such as
// `IndexScan(t)`, `Leading((t1 t2) t3)`, `MaxGeneratedRows(10)`. Arguments are names, numbers or
// parenthesized groups separated by white space. A hint syntax error, or the same hint twice (or
// with its No... opposite on the same targets), is a syntax error at the place in the comment;
// hints the store does not know are kept: whether to use them is the planner's call.

import type { SqlHint, SqlHintArgument } from './ast.ts';
import { sqlSyntaxError, type SqlPosition } from './errors.ts';

/** Nesting of hint argument groups, as Leading((t1 t2) t3) needs. */
const HINT_GROUP_DEPTH_MAX = 32;

/** Reads the hints of one hint comment whose text (after `/*+`) starts 3 characters after `at`. */
export function parseHints(text: string, at: SqlPosition): SqlHint[] {
  const reader = new HintReader(text, at);
  const hints: SqlHint[] = [];
  const seen = new Map<string, SqlHint>();
  for (reader.skipSpace(); !reader.atEnd(); reader.skipSpace()) {
    const hint = reader.hint();
    const key = `${hint.name.toUpperCase().replace(/^NO/, '')}${JSON.stringify(hint.args)}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw sqlSyntaxError(`the hint ${hint.name} repeats or contradicts ${earlier.name} at ` +
        `line ${earlier.position.line}, column ${earlier.position.column}`, hint.position);
    }
    seen.set(key, hint);
    hints.push(hint);
  }
  return hints;
}

class HintReader {
  private offset = 0;

  constructor(private readonly text: string, private readonly at: SqlPosition) {}

  atEnd(): boolean {
    return this.offset >= this.text.length;
  }

  skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.offset]!)) this.offset++;
  }

  hint(): SqlHint {
    const position = this.position();
    const name = this.match(/[A-Za-z_][A-Za-z0-9_]*/y);
    if (name === undefined) this.fail('a hint name');
    this.skipSpace();
    if (this.text[this.offset] !== '(') this.fail(`'(' after the hint ${name}`);
    this.offset++;
    const args = this.argumentsUntilClose(0);
    return { name, args, position };
  }

  /** Arguments up to and including the `)` that closes the current group. */
  private argumentsUntilClose(depth: number): SqlHintArgument[] {
    if (depth >= HINT_GROUP_DEPTH_MAX) this.fail(`at most ${HINT_GROUP_DEPTH_MAX} nested groups`);
    const args: SqlHintArgument[] = [];
    for (;;) {
      this.skipSpace();
      const character = this.text[this.offset];
      if (character === ')') {
        this.offset++;
        return args;
      }
      if (character === '(') {
        this.offset++;
        args.push({ kind: 'group', items: this.argumentsUntilClose(depth + 1) });
        continue;
      }
      const number = this.match(/[+-]?[0-9]+(?:\.[0-9]+)?/y);
      if (number !== undefined) {
        args.push({ kind: 'number', text: number });
        continue;
      }
      const name = this.match(/[A-Za-z_][A-Za-z0-9_#]*|"(?:[^"]|"")+"/y);
      if (name === undefined) this.fail(`a table name, a number or ')'`);
      args.push({ kind: 'name', text: name });
    }
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.offset;
    const found = pattern.exec(this.text);
    if (found === null) return undefined;
    this.offset += found[0].length;
    return found[0];
  }

  private position(): SqlPosition {
    const before = this.text.slice(0, this.offset);
    const newlineCount = before.split('\n').length - 1;
    const offset = this.at.offset + 3 + this.offset;
    if (newlineCount === 0) {
      return { offset, line: this.at.line, column: this.at.column + 3 + this.offset };
    }
    const column = this.offset - before.lastIndexOf('\n');
    return { offset, line: this.at.line + newlineCount, column };
  }

  private fail(what: string): never {
    const found = this.atEnd() ? 'the end of the hint' : JSON.stringify(this.text[this.offset]);
    throw sqlSyntaxError(`in a hint: expected ${what}, found ${found}`, this.position());
  }
}
