// The token table: the top tokens by liquidity, live over /ws `tokens.subscribe` (each push updates its rows),
// sortable by any column, searchable by id, symbol or name over every token the api knows (`tokens.search`), not
// only the ones in the table.
import { api, data, TokenSocket } from '../api.ts';
import { fill, h, section, tokenLink } from '../dom.ts';
import { changeClass, decimal, percent, usd } from '../format.ts';

const FIELDS = ['symbol', 'name', 'price_usd', 'price_change_24h', 'volume_usd_24h', 'liquidity_usd', 'holders'] as const;
type Field = (typeof FIELDS)[number];
type Row = Record<Field, string | number | null> & { id: string };
/** Most rows the table follows live, and most a search shows. */
const LIMIT = 100;
/** How long typing pauses before the search is asked. */
const SEARCH_DELAY_MS = 150;

/**
 * `inner-nep141:X` is not a token of its own but X held inside an AmmA (Ref) exchange for its depositors: no one holds,
 * sends or trades it apart from X. The api gives it no symbol and no price, so it would read as a nameless, unpriced
 * row; labelled and priced as X it would list X twice. The honest table leaves it out: X's own row stands for it.
 */
const isInner = (id: string) => id.startsWith('inner-nep141:');

/** A token table result's rows as records. */
const recordsOf = (table: { columns: string[]; rows: unknown[][] }): Row[] =>
  table.rows.map((row) => {
    const r = { id: String(row[0]) } as Row;
    table.columns.slice(1).forEach((c, i) => ((r as Record<string, unknown>)[c] = row[i + 1]));
    return r;
  });

const COLUMNS: Array<{ key: Field | 'id'; label: string; numeric: boolean }> = [
  { key: 'symbol', label: 'Token', numeric: false },
  { key: 'price_usd', label: 'Price', numeric: true },
  { key: 'price_change_24h', label: '24h', numeric: true },
  { key: 'volume_usd_24h', label: 'Volume 24h', numeric: true },
  { key: 'liquidity_usd', label: 'Liquidity', numeric: true },
  { key: 'holders', label: 'Holders', numeric: true },
];

export function tokensPage(main: HTMLElement): () => void {
  const rows = new Map<string, Row>();
  let sort: { key: Field | 'id'; descending: boolean } = { key: 'liquidity_usd', descending: true };
  let query = '';
  /** The tokens matching `query`, from the api; null while no search is asked. */
  let found: Row[] | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading tokens...');
  const search = h('input', { type: 'search', id: 'token-search', placeholder: 'symbol, name or id', autocomplete: 'off', spellcheck: 'false' });
  const head = h('tr');
  const body = h('tbody');
  const tableEl = h('table', { class: 'tokens' }, h('caption', { class: 'visually-hidden' }, 'Tokens, live'), h('thead', {}, head), body);

  const renderHead = () =>
    fill(
      head,
      h('th', { scope: 'col', class: 'rank' }, '#'),
      ...COLUMNS.map((c) => {
        const active = sort.key === c.key;
        return h(
          'th',
          { scope: 'col', class: c.numeric ? 'num' : null, 'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : 'none' },
          h('button', { type: 'button', class: 'sort', onclick: () => setSort(c.key) }, c.label, active ? (sort.descending ? ' ▼' : ' ▲') : ''),
        );
      }),
    );

  const setSort = (key: Field | 'id') => {
    sort = { key, descending: sort.key === key ? !sort.descending : key !== 'symbol' };
    renderHead();
    renderBody();
  };

  const value = (row: Row, key: Field | 'id') => (key === 'symbol' ? String(row.symbol ?? row.id).toLowerCase() : key === 'id' ? row.id : row[key] === null ? null : Number(row[key]));

  const renderBody = (changed: ReadonlySet<string> = new Set()) => {
    const needle = query.toLowerCase();
    // A search shows the api's matches, with the live values of those the table follows; until they come, the
    // table's own rows that match.
    const shown = (
      needle && found !== null
        ? found.map((r) => rows.get(r.id) ?? r)
        : [...rows.values()].filter((r) => !needle || [r.id, r.symbol, r.name].some((t) => String(t ?? '').toLowerCase().includes(needle)))
    ).filter((r) => !isInner(r.id));
    shown.sort((a, b) => {
      const va = value(a, sort.key);
      const vb = value(b, sort.key);
      if (va === vb) return a.id < b.id ? -1 : 1;
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * (sort.descending ? -1 : 1);
    });
    fill(
      body,
      ...shown.map((r, i) =>
        h(
          'tr',
          { 'data-token': r.id, class: changed.has(r.id) ? 'flash' : null },
          h('td', { class: 'rank' }, i + 1),
          h('td', {}, tokenLink(r.id, String(r.symbol ?? r.id)), h('span', { class: 'sub' }, r.name ?? r.id)),
          h('td', { class: 'num', 'data-field': 'price_usd' }, usd(r.price_usd)),
          h('td', { class: `num ${changeClass(r.price_change_24h)}`, 'data-field': 'price_change_24h' }, percent(r.price_change_24h)),
          h('td', { class: 'num', 'data-field': 'volume_usd_24h' }, usd(r.volume_usd_24h)),
          h('td', { class: 'num', 'data-field': 'liquidity_usd' }, usd(r.liquidity_usd)),
          h('td', { class: 'num', 'data-field': 'holders' }, r.holders === null ? '-' : decimal(String(r.holders))),
        ),
      ),
    );
    status.textContent = shown.length ? `${shown.length} tokens${needle ? ` matching "${query}"` : ''}, live` : needle ? `No token matches "${query}"` : 'No tokens indexed yet';
  };

  // Every token the api knows, by account id, symbol or name: the table holds only the top ones by liquidity.
  const runSearch = async (q: string) => {
    try {
      const table = await data(api.GET('/tokens/search', { params: { query: { q, fields: [...FIELDS], limit: LIMIT, precision: 6 } } }));
      if (q !== query) return; // typed on meanwhile
      found = recordsOf(table);
      main.dataset.searched = q;
      renderBody();
    } catch (err) {
      if (q === query) status.textContent = `Could not search: ${(err as Error).message}`;
    }
  };
  search.addEventListener('input', () => {
    query = search.value.trim();
    found = null;
    clearTimeout(searchTimer);
    if (query) searchTimer = setTimeout(() => void runSearch(query), SEARCH_DELAY_MS);
    renderBody();
  });

  fill(
    main,
    h('h1', {}, 'Tokens'),
    section('Token table', h('div', { class: 'toolbar' }, h('label', { for: 'token-search' }, 'Search'), search), status, h('div', { class: 'scroll' }, tableEl)),
  );
  renderHead();

  const socket = new TokenSocket();
  socket
    .subscribe({ fields: [...FIELDS], sort: { by: 'liquidity_usd', desc: true }, limit: LIMIT, precision: 6 }, (push) => {
      for (const id of push.left as string[]) rows.delete(id);
      for (const [id, values] of Object.entries(push.set as Record<string, Partial<Row>>)) rows.set(id, { ...(rows.get(id) ?? ({ id } as Row)), ...values, id });
      main.dataset.pushes = String(Number(main.dataset.pushes ?? 0) + 1);
      renderBody(new Set(Object.keys(push.set)));
    })
    .then((table) => {
      for (const r of recordsOf(table as { columns: string[]; rows: unknown[][] })) rows.set(r.id, r);
      renderBody();
    })
    .catch((err: Error) => (status.textContent = `Could not load the tokens: ${err.message}`));
  return () => {
    clearTimeout(searchTimer);
    socket.close();
  };
}
