// A token: its figures, a candle chart (lightweight-charts) with a resolution switch, its pools, and its recent
// trades, transfers and top holders. A `tokens.subscribe` on this one token tells when a block changed it: then the
// figures, the last candles and the lists are read again.
import { api, data, tokenInfo, TokenSocket } from '../api.ts';
import { CandleChart, resolutionSwitch } from '../chart.ts';
import { accountLink, fill, h, historyNote, poolLink, section, table } from '../dom.ts';
import { changeClass, decimal, feePercent, percent, time, units, usd } from '../format.ts';

const FIELDS = [
  'symbol', 'name', 'decimals', 'price_usd', 'price_change_5m', 'price_change_1h', 'price_change_6h', 'price_change_24h', 'volume_usd_24h',
  'buys_24h', 'sells_24h', 'traders_24h', 'liquidity_usd', 'fdv_usd', 'holders', 'total_supply', 'reputation',
] as const;

export function tokenPage(main: HTMLElement, id: string): () => void {
  let decimals: number | null = null;

  const title = h('h1', {}, id);
  const figures = h('dl', { class: 'figures' });
  const chartBox = h('div', { class: 'chart', role: 'img', 'aria-label': `Candle chart of ${id}` });
  const chart = new CandleChart(chartBox);
  const pools = table(`Pools of ${id}`, ['Pool', 'DEX', { label: 'Liquidity', numeric: true }, { label: 'Volume 24h', numeric: true }, { label: 'Fee', numeric: true }]);
  const switcher = resolutionSwitch(() => void loadCandles(true));
  const trades = table(`Recent trades of ${id}`, ['Time', 'Side', { label: 'Amount', numeric: true }, { label: 'Value', numeric: true }, 'Trader', 'DEX']);
  const transfers = table(`Recent transfers of ${id}`, ['Time', 'From', 'To', { label: 'Amount', numeric: true }]);
  const holders = table(`Top holders of ${id}`, ['#', 'Account', { label: 'Amount', numeric: true }, { label: 'Share', numeric: true }]);
  const holderCount = h('p', { class: 'muted' });
  const note = historyNote();
  trades.el.classList.add('trades');
  transfers.el.classList.add('transfers');
  holders.el.classList.add('holders');
  pools.el.classList.add('pools');

  fill(
    main,
    title,
    note.el,
    figures,
    section('Chart', switcher.el, chartBox),
    section('Pools', h('div', { class: 'scroll' }, pools.el)),
    h(
      'div',
      { class: 'columns' },
      section('Trades', h('div', { class: 'scroll' }, trades.el)),
      section('Transfers', h('div', { class: 'scroll' }, transfers.el)),
    ),
    section('Holders', holderCount, h('div', { class: 'scroll' }, holders.el)),
  );


  const loadFigures = async () => {
    const result = await data(api.GET('/tokens', { params: { query: { ids: [id], fields: [...FIELDS], precision: 6 } } }));
    const row = result.rows[0];
    if (!row) {
      fill(title, `Unknown token ${id}`);
      return false;
    }
    const f = Object.fromEntries(result.columns.map((c, i) => [c, row[i]])) as Record<string, string | number | null>;
    decimals = (f.decimals as number | null) ?? null;
    fill(title, String(f.symbol ?? id), ' ', h('span', { class: 'sub' }, String(f.name ?? ''), ' · ', id));
    const item = (label: string, value: string, cls = '') => [h('dt', {}, label), h('dd', { class: cls }, value)];
    fill(
      figures,
      ...item('Price', usd(f.price_usd)),
      ...item('5m', percent(f.price_change_5m), changeClass(f.price_change_5m)),
      ...item('1h', percent(f.price_change_1h), changeClass(f.price_change_1h)),
      ...item('6h', percent(f.price_change_6h), changeClass(f.price_change_6h)),
      ...item('24h', percent(f.price_change_24h), changeClass(f.price_change_24h)),
      ...item('Volume 24h', usd(f.volume_usd_24h)),
      ...item('Txns 24h', `${decimal(String(f.buys_24h ?? 0))} buys / ${decimal(String(f.sells_24h ?? 0))} sells`),
      ...item('Traders 24h', decimal(String(f.traders_24h ?? 0))),
      ...item('Liquidity', usd(f.liquidity_usd)),
      ...item('FDV', usd(f.fdv_usd)),
      ...item('Holders', f.holders === null ? '-' : decimal(String(f.holders))),
      ...item('Supply', f.total_supply === null ? '-' : units(String(f.total_supply), decimals, 8)),
      ...item('Reputation', String(f.reputation ?? '-')),
    );
    return true;
  };

  const loadCandles = async (fit: boolean) => {
    const result = await data(api.GET('/candles', { params: { query: { token: id, resolution: switcher.value(), count_back: 300 } } }));
    await chart.show(result.candles, fit);
  };

  // Its pools, deepest first: each links to its page.
  const loadPools = async () => {
    const result = await data(api.GET('/pools', { params: { query: { token: id, limit: 20 } } }));
    const info = await tokenInfo(result.rows.flatMap((p) => p.tokens));
    fill(
      pools.body,
      ...result.rows.map((p) =>
        h(
          'tr',
          { 'data-pool': `${p.dex}/${p.pool_id}` },
          h('td', {}, poolLink(p.dex, p.pool_id, p.tokens.map((t) => info.get(t)?.symbol ?? t).join(' / '))),
          h('td', {}, p.dex),
          h('td', { class: 'num' }, usd(p.liquidity_usd, 4)),
          h('td', { class: 'num' }, usd(p.volume_usd_24h, 4)),
          h('td', { class: 'num' }, feePercent(p.fee)),
        ),
      ),
    );
    if (!result.rows.length) fill(pools.body, h('tr', {}, h('td', { colspan: 5 }, 'In no pool')));
  };

  const loadTrades = async () => {
    const result = await data(api.GET('/trades', { params: { query: { token: id, limit: 25, fields: ['timestamp_millis', 'trader', 'dex', 'token_in', 'token_out', 'amount_in', 'amount_out', 'value_usd'] } } }));
    // The fields asked for are there.
    const rows = result.rows as Array<Required<(typeof result.rows)[number]>>;
    const info = await tokenInfo(rows.flatMap((r) => [r.token_in, r.token_out]));
    fill(
      trades.body,
      ...rows.map((r) => {
        const bought = r.token_out === id;
        const amount = bought ? r.amount_out : r.amount_in;
        const other = bought ? r.token_in : r.token_out;
        return h(
          'tr',
          {},
          h('td', {}, time(r.timestamp_millis)),
          h('td', { class: bought ? 'up' : 'down' }, bought ? 'buy' : 'sell', h('span', { class: 'sub' }, bought ? 'with ' : 'for ', info.get(other)?.symbol ?? other)),
          h('td', { class: 'num' }, units(amount, decimals)),
          h('td', { class: 'num' }, usd(r.value_usd, 4)),
          h('td', {}, accountLink(r.trader)),
          h('td', {}, r.dex),
        );
      }),
    );
    if (!result.rows.length) fill(trades.body, h('tr', {}, h('td', { colspan: 6 }, 'No trades yet')));
  };

  const loadTransfers = async () => {
    const result = await data(api.GET('/transfers', { params: { query: { token: id, limit: 25, fields: ['timestamp_millis', 'from', 'to', 'amount'] } } }));
    const rows = result.rows as Array<Required<(typeof result.rows)[number]>>;
    fill(
      transfers.body,
      ...rows.map((r) =>
        h('tr', {}, h('td', {}, time(r.timestamp_millis)), h('td', {}, r.from ? accountLink(r.from) : 'mint'), h('td', {}, r.to ? accountLink(r.to) : 'burn'), h('td', { class: 'num' }, units(r.amount, decimals))),
      ),
    );
    if (!result.rows.length) fill(transfers.body, h('tr', {}, h('td', { colspan: 4 }, 'No transfers yet')));
  };

  const loadHolders = async () => {
    const result = await data(api.GET('/holders', { params: { query: { token: id, limit: 20 } } }));
    note.show(result.history_from_height);
    holderCount.textContent = `${result.holders.toLocaleString('en-US')} accounts hold ${id}${result.history_from_height === null ? '' : ` (since block ${result.history_from_height.toLocaleString('en-US')})`}.`;
    fill(
      holders.body,
      ...result.rows.map((r, i) =>
        h(
          'tr',
          {},
          h('td', {}, i + 1),
          h('td', {}, accountLink(r.account_id)),
          h('td', { class: 'num' }, units(r.amount, decimals)),
          h('td', { class: 'num share' }, h('span', { class: 'bar', style: `width:${Math.min(100, Number(r.share ?? 0) * 100)}%` }), percent(r.share).replace('+', '')),
        ),
      ),
    );
  };

  const refresh = async (first: boolean) => {
    if (!(await loadFigures())) return;
    await Promise.all([loadCandles(first), loadPools(), loadTrades(), loadTransfers(), loadHolders()]);
  };

  // Pushes are counted on the page (data-pushes) as they arrive; each one reads the token again.
  const socket = new TokenSocket();
  let running = Promise.resolve();
  void refresh(true)
    .then(() =>
      socket.subscribe({ ids: [id], fields: ['price_usd', 'volume_usd_24h', 'liquidity_usd', 'holders'] }, () => {
        main.dataset.pushes = String(Number(main.dataset.pushes ?? 0) + 1);
        running = running.then(() => refresh(false)).catch(() => {});
      }),
    )
    .catch((err: Error) => fill(figures, h('p', { role: 'alert' }, `Could not load ${id}: ${err.message}`)));
  return () => {
    socket.close();
    chart.remove();
  };
}
