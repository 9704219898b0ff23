// The explorer: one page per hash route (#/, #/token/ID, #/pool/DEX/ID, #/account/ID, #/route, #/indexer), each
// rendered into <main> and given a way to stop what it keeps running (sockets, timers) when another is shown.
import './style.css';
import { api, data } from './api.ts';
import { fill, h } from './dom.ts';
import { accountPage } from './pages/account.ts';
import { indexerPage } from './pages/indexer.ts';
import { poolPage } from './pages/pool.ts';
import { routePage } from './pages/route.ts';
import { tokenPage } from './pages/token.ts';
import { tokensPage } from './pages/tokens.ts';

/** A page renders into `main` and returns what stops it. */
export type Page = (main: HTMLElement, arg: string) => (() => void) | void;

/** Each route's pattern captures the page's argument: an id (percent-decoded) or, for the route tester, a query. */
const routes: Array<[RegExp, Page, string]> = [
  [/^#?\/?$/, tokensPage, 'Tokens'],
  [/^#\/token\/(.+)$/, tokenPage, 'Token'],
  [/^#\/pool\/(.+)$/, poolPage, 'Pool'],
  [/^#\/account\/(.+)$/, accountPage, 'Account'],
  [/^#\/route(?:\?(.*))?$/, routePage, 'Route tester'],
  [/^#\/indexer$/, indexerPage, 'Indexer'],
];

const main = document.getElementById('main')!;
let stop: (() => void) | void;

function show(): void {
  stop?.();
  stop = undefined;
  const hash = location.hash;
  for (const [pattern, page, title] of routes) {
    const match = pattern.exec(hash);
    if (!match) continue;
    const arg = page === routePage ? (match[1] ?? '') : decodeURIComponent(match[1] ?? '');
    document.title = `${arg && page !== routePage ? `${arg} · ` : ''}${title} · dexlake`;
    fill(main);
    for (const link of document.querySelectorAll<HTMLAnchorElement>('header nav a')) {
      const section = hash.split('?')[0]!.split('/').slice(0, 2).join('/');
      if (link.getAttribute('href') === (section === '#/token' || section === '#/pool' || section === '#' || section === '' ? '#/' : section)) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    stop = page(main, arg);
    return;
  }
  fill(main, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'Back to the tokens')));
}

// The skip link moves the focus to the content without touching the hash (which names the page).
document.querySelector('a.skip')!.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', () => {
  show();
  main.focus({ preventScroll: true });
});
show();

// The jump box: a token id if the api knows it, else an account.
document.getElementById('jump')!.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('jump-input') as HTMLInputElement;
  const q = input.value.trim();
  if (!q) return;
  const table = await data(api.GET('/tokens', { params: { query: { ids: [q], fields: ['symbol'] } } })).catch(() => null);
  location.hash = table && table.rows.length ? `#/token/${encodeURIComponent(q)}` : `#/account/${encodeURIComponent(q)}`;
  input.value = '';
});

// The header's head height, from /health every few seconds; a 503's body has it too, and says why it is not ready.
const live = document.getElementById('live')!;
async function head(): Promise<void> {
  const answer = await api.GET('/health').catch(() => null);
  const health = answer?.data ?? answer?.error;
  live.textContent = health?.height ? `block ${health.height.toLocaleString('en-US')}` : 'no blocks';
  const behind = health?.lag_seconds != null ? `newest indexed block, ${health.lag_seconds} s behind the chain` : 'newest indexed block';
  live.title = health?.reason ? `${behind}; not ready: ${health.reason}` : behind;
}
void head();
setInterval(() => void head(), 5_000);
