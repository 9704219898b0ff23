// Runs the real `dexlake` command as a child process and finds every process it left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/dexlake.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runDexlake(args: string[], env: Record<string, string | undefined> = {}): Running {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: undefined, ...env };
  for (const key of Object.keys(fullEnv)) if (fullEnv[key] === undefined) delete fullEnv[key];
  const child = spawn(process.execPath, [BIN, ...args], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Polls GET url until it answers 200 (or the process exits, or the time runs out). */
export async function waitForOk(url: string, running?: Running, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void running?.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`process exited before ${url} answered:\n${running?.output()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return await res.json();
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${running?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Polls GET url (a /health) until the api answers with its JSON body, ready (200) or not (503, which says why: an
 * empty database, say): for a harness that needs the api up, not the service ready.
 */
export async function waitForAnswer(url: string, running?: Running, timeoutMs = 60_000): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void running?.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`process exited before ${url} answered:\n${running?.output()}`);
    try {
      const res = await fetch(url);
      if (res.ok || res.status === 503) return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${running?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Live processes whose command line or environment mentions `marker` (a unique data dir, say). */
export function processesMentioning(marker: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie is already gone
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (cmd.includes(marker) || environ.includes(marker)) found.push({ pid, cmd });
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

export async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
