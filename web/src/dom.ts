// A small DOM builder: h('a', {href}, 'text', child...). Text is always set as text, never parsed as HTML.
export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: any) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A table with a caption (read by screen readers), a header row and a body to fill. */
export function table(caption: string, headers: Array<string | { label: string; numeric?: boolean }>): { el: HTMLTableElement; body: HTMLTableSectionElement } {
  const body = h('tbody');
  const el = h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ...headers.map((c) => (typeof c === 'string' ? h('th', { scope: 'col' }, c) : h('th', { scope: 'col', class: c.numeric ? 'num' : null }, c.label))))),
    body,
  );
  return { el, body };
}

export function section(title: string, ...children: Child[]): HTMLElement {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

export const tokenLink = (id: string, label?: string | null) => h('a', { href: `#/token/${encodeURIComponent(id)}` }, label ?? id);
export const accountLink = (id: string | null | undefined) => (id ? h('a', { href: `#/account/${encodeURIComponent(id)}` }, id) : '-');
export const poolLink = (dex: string, poolId: string, label: string) => h('a', { href: `#/pool/${encodeURIComponent(dex)}/${encodeURIComponent(poolId)}` }, label);

/**
 * The note a page shows when the api's history starts at a bootstrap (`history_from_height`): the balances, holders,
 * positions, activity and candles it shows count only from that block on. Hidden while history is complete.
 */
export function historyNote(): { el: HTMLElement; show(from: number | null): void } {
  const el = h('p', { class: 'history-note muted', role: 'note', hidden: true });
  return {
    el,
    show(from) {
      el.hidden = from === null;
      el.textContent = from === null ? '' : `History from block ${from.toLocaleString('en-US')} on: the database was bootstrapped there, so balances, holders, positions, activity and candles count only what happened since (holders' shares are left out).`;
    },
  };
}
