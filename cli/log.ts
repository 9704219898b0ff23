// Log lines for a terminal: the processes log pino JSON, and `dexlake start` prints each line as
// `12:00:01.123 INFO  [api] message key=value`, prefixed by the process it came from.
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
/** pino's level numbers. */
export const LEVEL = { info: 30, warn: 40, error: 50, fatal: 60 } as const;
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'proc']);

/** `otherLevel`: the level of a line that is not pino JSON, shown with the time it arrived, so every line has one
 * format. */
export function formatLogLine(proc: string, line: string, otherLevel: number = LEVEL.info): string {
  let entry: Record<string, unknown> | undefined;
  if (line.startsWith('{')) {
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      entry = undefined;
    }
  }
  if (!entry || typeof entry.level !== 'number') entry = { level: otherLevel, time: Date.now(), msg: line };
  const level = entry.level as number;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const extra = Object.entries(entry)
    .filter(([key]) => !OMIT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time} ${LEVELS[level] ?? level} [${proc}] ${entry.msg ?? ''}${extra ? ` ${extra}` : ''}`;
}

/** Calls `onLine` for every complete line of a stream of chunks. */
export function lineSplitter(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let rest = '';
  return (chunk) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line) onLine(line);
  };
}
