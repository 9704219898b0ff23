// A cheap check that a network answer is one whole JSON object, for the sources' retries: parsing a block is most of
// the cost of ingestion and happens once, on a decode worker, so the source only makes sure that what it hands over
// is not cut short (a truncated body, a proxy's HTML page). It follows strings (and their escapes) and brackets. On
// the real fixture blocks it takes about as long as JSON.parse itself (1.9 ns a character on this machine, 2026-11),
// but allocates nothing, so the main thread is spared the parse's garbage; a regex scan for the next bracket or quote
// was no faster. What it lets through that JSON.parse would refuse is a corrupted middle, which no server or proxy
// produces by cutting or replacing an answer.

/** True when `text` is one object or array, closed at its end (whitespace aside). */
export function isWholeJson(text: string): boolean {
  let i = text.search(/\S/);
  const first = text.charCodeAt(i);
  if (first !== 123 && first !== 91) return false; // { [
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === 34) {
      // A string: to the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
        i = quote + 1;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      depth++;
    } else if (c === 125 || c === 93) {
      if (--depth === 0) return /^\s*$/.test(text.slice(i));
    }
  }
  return false;
}

/**
 * Where the value of member `key` of the object starting at `start` (its `{`) begins, or -1: only its own members
 * count, not those of objects inside it, so the cost is the length of the members before it.
 */
export function memberValue(text: string, start: number, key: string): number {
  if (text.charCodeAt(start) !== 123) return -1;
  const quoted = `"${key}"`;
  let depth = 0;
  let i = start;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === 34) {
      const begin = i - 1;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) return -1;
        let slashes = 0;
        while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
        i = quote + 1;
        if (slashes % 2 === 0) break;
      }
      // A key of this object: a string at depth 1 followed by a colon.
      if (depth === 1 && i - begin === quoted.length && text.startsWith(quoted, begin)) {
        const colon = text.slice(i, i + 16).search(/\S/);
        if (text.charCodeAt(i + colon) === 58) return i + colon + 1 + text.slice(i + colon + 1, i + colon + 17).search(/\S/);
      }
    } else if (c === 123 || c === 91) {
      depth++;
    } else if (c === 125 || c === 93) {
      if (--depth === 0) return -1;
    }
  }
  return -1;
}
