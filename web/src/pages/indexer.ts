// The indexer as the api sees it (GET /indexer, read again every 2 s): height, lag, blocks/s, and per DEX its pools,
// trades of the last 24 h and undecoded inputs.
import { api, data } from '../api.ts';
import { fill, h, section, table } from '../dom.ts';
import { decimal, time } from '../format.ts';

export function indexerPage(main: HTMLElement): () => void {
  const figures = h('dl', { class: 'figures' });
  const dexes = table('Per DEX', ['DEX', { label: 'Pools', numeric: true }, { label: 'Stale pools', numeric: true }, { label: 'Trades 24h', numeric: true }, { label: 'Undecoded', numeric: true }]);
  dexes.el.classList.add('dexes');
  const status = h('p', { role: 'status', class: 'muted' });
  fill(
    main,
    h('h1', {}, 'Indexer'),
    figures,
    section('DEXes', h('div', { class: 'scroll' }, dexes.el), h('p', { class: 'muted' }, 'Undecoded: inputs a decoder could not read, kept and counted (`dexlake undecoded` lists them); a pool whose latest write did not decode is stale and not routed.')),
    status,
  );
  const load = async () => {
    try {
      const s = await data(api.GET('/indexer'));
      const item = (label: string, value: string) => [h('dt', {}, label), h('dd', {}, value)];
      fill(
        figures,
        ...item('Height', s.height === null ? '-' : s.height.toLocaleString('en-US')),
        ...item('Block time', s.timestamp_millis === null ? '-' : time(s.timestamp_millis)),
        ...item('Lag', s.lag_seconds === null ? '-' : `${decimal(String(s.lag_seconds), 3)} s`),
        ...item('Blocks/s', decimal(String(s.blocks_per_second), 3)),
      );
      fill(
        dexes.body,
        ...s.dexes.map((d) =>
          h(
            'tr',
            { 'data-dex': d.dex },
            h('th', { scope: 'row' }, d.dex),
            h('td', { class: 'num' }, d.pools),
            h('td', { class: `num ${d.stale_pools ? 'down' : ''}` }, d.stale_pools),
            h('td', { class: 'num' }, d.trades_24h.toLocaleString('en-US')),
            h('td', { class: `num ${d.undecoded ? 'warn' : ''}` }, d.undecoded.toLocaleString('en-US')),
          ),
        ),
      );
      status.textContent = `Updated ${time(Date.now())}`;
    } catch (err) {
      status.textContent = `Could not read /indexer: ${(err as Error).message}`;
    }
  };
  void load();
  const timer = setInterval(() => void load(), 2_000);
  return () => clearInterval(timer);
}
