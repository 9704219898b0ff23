// Credits per minute, per client (an IP over HTTP, a connection on the socket): a fixed one-minute window. A
// request arriving when the window's credits are spent is refused with `rate_limited` and the seconds to wait.
import { ApiError } from './errors.ts';

const WINDOW_MS = 60_000;

export class CreditBudget {
  readonly #windows = new Map<string, { start: number; spent: number }>();

  constructor(readonly creditsPerMinute: number) {}

  /** Throws `rate_limited` when `client` has no credits left in this window. */
  check(client: string, now = Date.now()): void {
    const window = this.#window(client, now);
    if (window.spent >= this.creditsPerMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      throw new ApiError('rate_limited', `more than ${this.creditsPerMinute} credits in a minute; retry in ${retryAfter} s`, retryAfter);
    }
  }

  spend(client: string, credits: number, now = Date.now()): void {
    this.#window(client, now).spent += credits;
  }

  #window(client: string, now: number): { start: number; spent: number } {
    let window = this.#windows.get(client);
    if (!window || now - window.start >= WINDOW_MS) {
      if (this.#windows.size > 100_000) this.#prune(now);
      window = { start: now, spent: 0 };
      this.#windows.set(client, window);
    }
    return window;
  }

  #prune(now: number): void {
    for (const [client, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(client);
  }
}
