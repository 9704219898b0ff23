// A pool (#/pool/DEX/ID): its figures from /pools, its reserves, a candle chart of its first token through it, and
// its recent trades, kept live by `trades.subscribe` on the pool: each pushed trade is added to the top of the list,
// and the figures and candles are read again.
import { api, data, tokenInfo, TokenSocket, type paths, type TokenInfo } from '../api.ts';
import { CandleChart, resolutionSwitch } from '../chart.ts';
import { accountLink, fill, h, section, table, tokenLink } from '../dom.ts';
import { decimal, feePercent, time, units, usd } from '../format.ts';

type DexId = NonNullable<NonNullable<paths['/pools']['get']['parameters']['query']>['dex']>;

/** The trades shown. */
const TRADES = 25;

interface Trade {
  id: string;
  timestamp_millis?: number;
  trader?: string | null;
  token_in?: string;
  token_out?: string;
  amount_in?: string;
  amount_out?: string;
  value_usd?: string | null;
}

export function poolPage(main: HTMLElement, arg: string): () => void {
  // The DEX ids have no slash; a pool id may be anything after it.
  const slash = arg.indexOf('/');
  const dex = arg.slice(0, slash);
  const poolId = arg.slice(slash + 1);
  let tokens: string[] = [];
  let info = new Map<string, TokenInfo>();
  let shown: Trade[] = [];

  const title = h('h1', {}, `${dex} pool ${poolId}`);
  const figures = h('dl', { class: 'figures' });
  const reserves = table(`Reserves of ${dex} pool ${poolId}`, ['Token', { label: 'Reserve', numeric: true }]);
  const chartBox = h('div', { class: 'chart', role: 'img', 'aria-label': `Candle chart of ${dex} pool ${poolId}` });
  const chart = new CandleChart(chartBox);
  const chartNote = h('p', { class: 'muted' });
  const switcher = resolutionSwitch(() => void loadCandles(true));
  const trades = table(`Recent trades of ${dex} pool ${poolId}`, ['Time', 'Swap', { label: 'Value', numeric: true }, 'Trader']);
  reserves.el.classList.add('reserves');
  trades.el.classList.add('trades');
  fill(
    main,
    title,
    figures,
    section('Reserves', h('div', { class: 'scroll' }, reserves.el)),
    section('Chart', chartNote, switcher.el, chartBox),
    section('Trades', h('p', { class: 'muted' }, 'Live: new trades through the pool are added as blocks are indexed.'), h('div', { class: 'scroll' }, trades.el)),
  );

  const symbol = (token: string) => info.get(token)?.symbol ?? token;
  const amount = (token: string, value: string) => `${units(value, info.get(token)?.decimals)} ${symbol(token)}`;


  const loadFigures = async () => {
    const result = await data(api.GET('/pools', { params: { query: { dex: dex as DexId, pool_id: poolId, precision: 6 } } }));
    const pool = result.rows[0];
    if (!pool) {
      fill(title, `Unknown pool ${dex} ${poolId}`);
      return false;
    }
    tokens = pool.tokens;
    info = await tokenInfo(tokens);
    fill(title, tokens.map(symbol).join(' / '), ' ', h('span', { class: 'sub' }, `${dex} · ${pool.kind} · pool ${poolId}`));
    const item = (label: string, ...value: Array<string | Node>) => [h('dt', {}, label), h('dd', {}, ...value)];
    const [t0, t1] = tokens as [string, string];
    fill(
      figures,
      ...item('Price', pool.price === null ? '-' : `1 ${symbol(t0)} = ${decimal(pool.price)} ${symbol(t1)}`),
      ...item('Liquidity', usd(pool.liquidity_usd, 4)),
      ...item('Volume 24h', usd(pool.volume_usd_24h, 4)),
      ...item('Fee', feePercent(pool.fee)),
      // Null: the index found it existing (a bootstrap or an import), created at no known block.
      ...item('Created', pool.created_height === null ? '-' : `block ${pool.created_height.toLocaleString('en-US')}`),
      ...item('Updated', `block ${pool.updated_height.toLocaleString('en-US')}${pool.stale ? ' (its latest write did not decode)' : ''}`),
    );
    fill(reserves.body, ...tokens.map((t, i) => h('tr', {}, h('td', {}, tokenLink(t, symbol(t))), h('td', { class: 'num' }, units(pool.reserves[i]!, info.get(t)?.decimals)))));
    chartNote.textContent = `${symbol(t0)} in USD, from the trades through this pool.`;
    return true;
  };

  const loadCandles = async (fit: boolean) => {
    if (!tokens.length) return;
    const result = await data(api.GET('/candles', { params: { query: { token: tokens[0]!, pool_id: poolId, dex: dex as DexId, resolution: switcher.value(), count_back: 300 } } }));
    await chart.show(result.candles, fit);
  };

  const renderTrades = () => {
    fill(
      trades.body,
      ...shown.map((t) =>
        h(
          'tr',
          { 'data-id': t.id },
          h('td', {}, time(t.timestamp_millis!)),
          h('td', {}, `${amount(t.token_in!, t.amount_in!)} → ${amount(t.token_out!, t.amount_out!)}`),
          h('td', { class: 'num' }, usd(t.value_usd, 4)),
          h('td', {}, accountLink(t.trader)),
        ),
      ),
    );
    if (!shown.length) fill(trades.body, h('tr', {}, h('td', { colspan: 4 }, 'No trades yet')));
    main.dataset.trades = String(shown.length);
  };

  const loadTrades = async () => {
    const result = await data(api.GET('/trades', { params: { query: { pool_id: poolId, dex: dex as DexId, limit: TRADES } } }));
    shown = result.rows;
    info = new Map([...info, ...(await tokenInfo(shown.flatMap((t) => [t.token_in!, t.token_out!])))]);
    renderTrades();
  };

  // The feed's pushes: newest first on the page; each one reads the figures and the candles again.
  const socket = new TokenSocket();
  let running = Promise.resolve();
  const onTrades = (push: { trades: Trade[] }) => {
    main.dataset.pushes = String(Number(main.dataset.pushes ?? 0) + 1);
    // A trade the list was read with (at a later height than the subscription) is not added twice.
    const known = new Set(shown.map((t) => t.id));
    shown = [...push.trades.filter((t) => !known.has(t.id)).reverse(), ...shown].slice(0, TRADES);
    renderTrades();
    running = running
      .then(async () => {
        if (await loadFigures()) await loadCandles(false);
      })
      .catch(() => {});
  };
  void (async () => {
    if (!(await loadFigures())) return;
    // Subscribed before the list is read, so no trade falls between the two: the list is read at a later height.
    await socket.subscribe({ pool_id: poolId, dex }, (push) => onTrades(push as { trades: Trade[] }), 'trades.subscribe');
    await Promise.all([loadCandles(true), loadTrades()]);
  })().catch((err: Error) => fill(figures, h('p', { role: 'alert' }, `Could not load ${dex} pool ${poolId}: ${err.message}`)));
  return () => {
    socket.close();
    chart.remove();
  };
}
