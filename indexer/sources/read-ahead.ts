// Adaptive read-ahead for the network sources: blocks are requested several at a time and handed over in height
// order, however their answers arrive. Over the internet each request waits a round trip, so the number in flight
// sets the speed (100 ms per request and 4 in flight is 40 blocks/s at best); it adapts like a TCP window:
// - it grows while the throughput grows with it, which it does as long as a wider window does not make each answer
//   slower (throughput = window / round trip): doubling per round of answers at first (slow start), then by one per
//   round, while answers take about their shortest time; it steps back by one when they take twice that (a queue
//   somewhere: a bandwidth cap, a busy server);
// - it is halved on a failed request (an error, a 429, a stall), at most once per round, never below the floor;
// - it grows only while it is what holds the reading back: not when the consumer is slower than the network (answers
//   wait to be taken), when the memory budget is full, or at the chain head (nothing more to ask for);
// - the blocks held (answered and not yet taken, plus the expected size of those in flight) stay within a budget
//   of bytes, whatever their size; one block is always allowed, so a block larger than the budget still passes.

export interface ReadAheadSettings {
  /** Blocks in flight at the start, and the least the window shrinks to on errors. */
  floor: number;
  /** Blocks in flight at most. */
  ceiling: number;
  /** Bytes of blocks held at most (answered and not yet taken, and the expected size of those in flight). */
  budgetBytes: number;
}

/** The floor is the fixed read-ahead the sources had before: 4 blocks. */
export const DEFAULT_READ_AHEAD: ReadAheadSettings = { floor: 4, ceiling: 64, budgetBytes: 256 * 2 ** 20 };

export interface ReadAheadStats {
  /** Blocks requested and not answered yet (retries included). */
  inFlight: number;
  /** The window: blocks allowed in flight now. */
  limit: number;
  /** Bytes of blocks answered and not yet taken. */
  heldBytes: number;
}

interface Slot<T> {
  promise: Promise<T>;
  /** Its block's size once answered. */
  bytes: number;
}

/** A round of answers, a window's worth (about one round trip): the window is adjusted after each. */
interface Round {
  answers: number;
  /** Sum of the answers' times, for their mean. */
  totalMs: number;
  /** fill() stopped on the window at least once, and never for another reason (budget, consumer, no keys). */
  windowStops: number;
  otherStops: number;
}

/** Rounds at most this much slower than the fastest: no queue, the window may grow. */
const UNQUEUED = 1.3;
/** Rounds this much slower: a queue has formed, the window steps back. */
const QUEUED = 2;
/** The fastest round is forgotten after this long (the route or the server may have changed). */
const SHORTEST_FOR_MS = 60_000;

export class ReadAhead<T> {
  readonly #slots: Slot<T>[] = [];
  #limit: number;
  #slowStart = true;
  #inFlight = 0;
  #heldBytes = 0;
  /** Mean size of the blocks answered so far (exponentially weighted), the expected size of one in flight. */
  #meanBytes: number | undefined;
  #round: Round = { answers: 0, totalMs: 0, windowStops: 0, otherStops: 0 };
  #rounds = 0;
  /** The fastest round's mean answer time in this period and in the one before, and when this period began. */
  #shortest = { now: Infinity, before: Infinity, since: 0 };
  /** The round in which the window was last halved: one halving per round of failures. */
  #halvedInRound = -1;

  /**
   * `fetch` gets one key's block (retrying as it sees fit); `nextKey` gives the next key to fetch when one is known
   * now (and consumes it), else undefined; `bytesOf` a block's size.
   */
  constructor(
    private readonly fetch: (key: number) => Promise<T>,
    private readonly nextKey: () => number | undefined,
    private readonly bytesOf: (block: T) => number,
    private readonly settings: ReadAheadSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#limit = this.#floor;
    this.#shortest.since = now();
  }

  /** Blocks requested and not taken yet. */
  get queued(): number {
    return this.#slots.length;
  }

  stats(): ReadAheadStats {
    return { inFlight: this.#inFlight, limit: Math.floor(this.#limit), heldBytes: this.#heldBytes };
  }

  /** Starts requests while the window, the budget, the consumer and `nextKey` allow. */
  fill(): void {
    for (;;) {
      const ready = this.#slots.length - this.#inFlight;
      const window = Math.floor(this.#limit);
      if (this.#inFlight >= window) {
        this.#round.windowStops++;
        return;
      }
      // Two windows of answers waiting: the consumer is the slower side, more requests would only wait too.
      const expected = this.#meanBytes ?? 0;
      if (this.#slots.length > 0 && (ready >= 2 * window || this.#heldBytes + (this.#inFlight + 1) * expected > this.settings.budgetBytes)) {
        this.#round.otherStops++;
        return;
      }
      const key = this.nextKey();
      if (key === undefined) {
        this.#round.otherStops++;
        return;
      }
      this.#start(key);
    }
  }

  /** The first block in key order, once answered; undefined when nothing was requested. */
  take(): Promise<T> | undefined {
    const slot = this.#slots.shift();
    if (slot === undefined) return undefined;
    return slot.promise.then((block) => {
      this.#heldBytes -= slot.bytes;
      this.fill();
      return block;
    });
  }

  /** A request failed and will be retried (an error, a 429, a stall): halve the window, once per round. */
  failed(): void {
    if (this.#halvedInRound === this.#rounds) return;
    this.#halvedInRound = this.#rounds;
    this.#limit = Math.max(this.#floor, Math.floor(this.#limit / 2));
    this.#slowStart = false;
    this.#endRound();
  }

  get #floor(): number {
    return Math.max(1, Math.min(this.settings.floor, this.settings.ceiling));
  }

  #start(key: number): void {
    this.#inFlight++;
    const started = this.now();
    const slot: Slot<T> = { promise: this.fetch(key), bytes: 0 };
    slot.promise.then(
      (block) => {
        slot.bytes = this.bytesOf(block);
        this.#inFlight--;
        this.#heldBytes += slot.bytes;
        this.#meanBytes = this.#meanBytes === undefined ? slot.bytes : this.#meanBytes * 0.9 + slot.bytes * 0.1;
        this.#answered(this.now() - started);
        this.fill();
      },
      () => {
        // Thrown by take() when its turn comes: an abort, or an error that ends the iteration.
        this.#inFlight--;
      },
    );
    this.#slots.push(slot);
  }

  #endRound(): void {
    this.#rounds++;
    this.#round = { answers: 0, totalMs: 0, windowStops: 0, otherStops: 0 };
  }

  /** Counts an answer; after a window's worth, the window is adjusted by how long they took. */
  #answered(ms: number): void {
    const now = this.now();
    const shortest = this.#shortest;
    if (now - shortest.since > SHORTEST_FOR_MS) Object.assign(shortest, { before: shortest.now, now: Infinity, since: now });
    const round = this.#round;
    round.answers++;
    round.totalMs += ms;
    const window = Math.floor(this.#limit);
    if (round.answers < window) return;
    this.#endRound();
    // The mean of a round, not single answers: a block's size and the consumer's pauses vary more than the queue.
    const mean = round.totalMs / round.answers;
    shortest.now = Math.min(shortest.now, mean);
    // Something else held the reading back: this round says nothing about a larger window.
    if (round.windowStops === 0 || round.otherStops > 0) return;
    const slower = mean / Math.min(shortest.now, shortest.before);
    if (this.#slowStart) {
      if (slower < UNQUEUED) this.#limit = Math.min(this.settings.ceiling, window * 2);
      else this.#slowStart = false;
    } else if (slower < UNQUEUED) {
      this.#limit = Math.min(this.settings.ceiling, window + 1);
    } else if (slower > QUEUED) {
      this.#limit = Math.max(this.#floor, window - 1);
    }
  }
}
