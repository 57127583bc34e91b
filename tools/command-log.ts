// Each gs_* command's own log, `$GS_LOG/<command>.log` (spec/surface.md §7.1), in GridDB's line
// format with the passwords masked as `***`:
//
//   2026-11-26 00:35:20,123 [4242] [INFO] gs_adduser start. (args: gs#ops -p ***)
//   2026-11-26 00:35:20,131 [4242] [ERROR] gs_adduser A10102: USERNAME 'gs#ops' already exists. ...
//
// Masked: the PASS of -u/--user USER/PASS, and the value of the command's password options
// (-p/--password of gs_adduser and gs_passwd; elsewhere -p is a port). A password typed at the
// prompt never reaches the log. The file rotates at
// COMMAND_LOG_BYTES_MAX into <command>.log.1 .. .COMMAND_LOG_BACKUP_COUNT, as Python's
// RotatingFileHandler does. Logging is best effort: a log that cannot be written does not stop
// the command (it says so once on stderr).

import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** GridDB's RotatingFileHandler: 5 MB a file, 10 backups. */
export const COMMAND_LOG_BYTES_MAX = 5 * 1024 * 1024;
export const COMMAND_LOG_BACKUP_COUNT = 10;

const MASK = '***';

/** The arguments, each password as `***`; `passwordFlags` as ['-p', '--password']. */
export function maskedArgs(args: readonly string[], passwordFlags: readonly string[] = []):
  string[] {
  const short = passwordFlags.find((flag) => /^-[^-]$/.test(flag));
  const long = passwordFlags.find((flag) => flag.startsWith('--'));
  const masked: string[] = [];
  let maskNext: 'all' | 'pass' | undefined;
  for (const arg of args) {
    if (maskNext !== undefined) {
      masked.push(maskNext === 'all' ? MASK : maskUserPass(arg));
      maskNext = undefined;
      continue;
    }
    if (passwordFlags.includes(arg)) {
      masked.push(arg);
      maskNext = 'all';
    } else if (arg === '-u' || arg === '--user') {
      masked.push(arg);
      maskNext = 'pass';
    } else if (long !== undefined && arg.startsWith(`${long}=`)) {
      masked.push(`${long}=${MASK}`);
    } else if (arg.startsWith('--user=')) {
      masked.push(`--user=${maskUserPass(arg.slice('--user='.length))}`);
    } else if (arg.startsWith('-u') && arg.length > 2) {
      masked.push(`-u${maskUserPass(arg.slice(2))}`);
    } else if (short !== undefined && arg.startsWith(short) && arg.length > 2) {
      masked.push(`${short}${MASK}`);
    } else {
      masked.push(arg);
    }
  }
  return masked;
}

function maskUserPass(text: string): string {
  const slash = text.indexOf('/');
  return slash < 0 ? text : `${text.slice(0, slash)}/${MASK}`;
}

export class CommandLog {
  private readonly path: string;
  private broken = false;

  constructor(private readonly name: string, directory: string) {
    this.path = join(directory, `${name}.log`);
    try {
      mkdirSync(directory, { recursive: true });
    } catch {
      // Reported at the first write.
    }
  }

  info(message: string): void {
    this.write('INFO', message);
  }

  error(message: string): void {
    this.write('ERROR', message);
  }

  private write(level: 'INFO' | 'ERROR', message: string): void {
    if (this.broken) return;
    const line = `${timestamp(new Date())} [${process.pid}] [${level}] ${this.name} ${message}\n`;
    try {
      this.rotateIfFull(Buffer.byteLength(line));
      appendFileSync(this.path, line, { mode: 0o600 });
    } catch (error) {
      this.broken = true;
      const reason = (error as Error).message;
      console.error(`(the command log ${this.path} cannot be written: ${reason})`);
    }
  }

  private rotateIfFull(lineBytes: number): void {
    if (!existsSync(this.path) || statSync(this.path).size + lineBytes <= COMMAND_LOG_BYTES_MAX) {
      return;
    }
    for (let index = COMMAND_LOG_BACKUP_COUNT - 1; index >= 1; index--) {
      const from = `${this.path}.${index}`;
      if (existsSync(from)) renameSync(from, `${this.path}.${index + 1}`);
    }
    renameSync(this.path, `${this.path}.1`);
  }
}

/** Python logging's asctime: `YYYY-MM-DD HH:MM:SS,mmm`, local time. */
function timestamp(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())},` +
    String(date.getMilliseconds()).padStart(3, '0');
}
