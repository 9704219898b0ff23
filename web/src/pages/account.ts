// An account: balances with USD values, positions with their PnL, and its activity (trades, transfers, stakes,
// wraps, liquidity), newest first.
import { api, data, tokenInfo } from '../api.ts';
import { accountLink, fill, h, historyNote, section, table, tokenLink } from '../dom.ts';
import { changeClass, time, units, usd } from '../format.ts';

export function accountPage(main: HTMLElement, id: string): void {
  const total = h('p', { class: 'figure' });
  const balances = table(`Balances of ${id}`, ['Token', { label: 'Amount', numeric: true }, { label: 'Price', numeric: true }, { label: 'Value', numeric: true }]);
  const positions = table(`Positions of ${id}`, ['Token', { label: 'Amount', numeric: true }, { label: 'Avg cost', numeric: true }, { label: 'Realized PnL', numeric: true }, { label: 'Unrealized PnL', numeric: true }]);
  const activity = table(`Activity of ${id}`, ['Time', 'Kind', 'What']);
  const note = historyNote();
  balances.el.classList.add('balances');
  positions.el.classList.add('positions');
  activity.el.classList.add('activity');
  fill(
    main,
    h('h1', {}, id, ' ', h('span', { class: 'sub' }, 'account')),
    note.el,
    section('Balances', total, h('div', { class: 'scroll' }, balances.el)),
    section('Positions', h('div', { class: 'scroll' }, positions.el)),
    section('Activity', h('div', { class: 'scroll' }, activity.el)),
  );
  const fail = (body: HTMLElement, columns: number) => (err: Error) => fill(body, h('tr', {}, h('td', { colspan: columns, role: 'alert' }, err.message)));

  data(api.GET('/balances', { params: { query: { account_id: id, precision: 6 } } }))
    .then((result) => {
      note.show(result.history_from_height);
      total.textContent = `Total ${usd(result.total_value_usd)}`;
      // By value, the largest first; a balance the api cannot price last (in the api's order among themselves).
      const rows = [...result.rows].sort((a, b) => (a.value_usd === null ? (b.value_usd === null ? 0 : 1) : b.value_usd === null ? -1 : Number(b.value_usd) - Number(a.value_usd)));
      fill(
        balances.body,
        ...rows.map((r) =>
          h('tr', {}, h('td', {}, tokenLink(r.token, r.symbol)), h('td', { class: 'num' }, units(r.amount, r.decimals)), h('td', { class: 'num' }, usd(r.price_usd)), h('td', { class: 'num' }, usd(r.value_usd, 4))),
        ),
      );
      if (!result.rows.length) fill(balances.body, h('tr', {}, h('td', { colspan: 4 }, 'No balances')));
    })
    .catch(fail(balances.body, 4));

  data(api.GET('/positions', { params: { query: { account_id: id, precision: 6 } } }))
    .then((result) => {
      fill(
        positions.body,
        ...result.rows.map((r) =>
          h(
            'tr',
            {},
            h('td', {}, tokenLink(r.token, r.symbol)),
            h('td', { class: 'num' }, units(r.amount, r.decimals)),
            h('td', { class: 'num' }, usd(r.average_cost_usd)),
            h('td', { class: `num ${changeClass(r.realized_pnl_usd)}` }, usd(r.realized_pnl_usd, 4)),
            h('td', { class: `num ${changeClass(r.unrealized_pnl_usd)}` }, usd(r.unrealized_pnl_usd, 4)),
          ),
        ),
      );
      if (!result.rows.length) fill(positions.body, h('tr', {}, h('td', { colspan: 5 }, 'No positions')));
    })
    .catch(fail(positions.body, 5));

  data(api.GET('/activity', { params: { query: { account_id: id, limit: 50 } } }))
    .then(async (result) => {
      const rows = result.rows as Array<Record<string, any>>;
      // `inner-nep141:X` (X held inside AmmA) counts in X's units.
      const outer = (token: string) => token.replace(/^inner-nep141:/, '');
      const info = await tokenInfo(rows.flatMap((r) => [r.token_in, r.token_out, r.token, ...(r.tokens ?? [])].filter((t): t is string => typeof t === 'string').map(outer)));
      const amount = (token: string, value: string) => [units(value, info.get(outer(token))?.decimals), ' ', tokenLink(token, info.get(token)?.symbol)];
      const what = (r: Record<string, any>) => {
        if (r.kind === 'trade') return [...amount(r.token_in, r.amount_in), ' → ', ...amount(r.token_out, r.amount_out), ` on ${r.dex}`];
        // A stake or a wrap reads as the action it was. A stake pays the staked token, an unstake NEAR (RHEA in for
        // xRHEA is a stake too); NEAR in is wrapping, NEAR out unwrapping, and a token into or out of its
        // `inner-nep141:` twin is a deposit into AmmA (Ref's inner balances) or a withdrawal from it.
        if (r.kind === 'stake') return [r.token_out === 'near' ? 'Unstaked ' : 'Staked ', ...amount(r.token_in, r.amount_in), ' for ', ...amount(r.token_out, r.amount_out), ` on ${r.dex}`];
        if (r.kind === 'wrap') {
          if (r.token_in === 'near') return ['Wrapped ', ...amount(r.token_in, r.amount_in)];
          if (r.token_out === 'near') return ['Unwrapped ', ...amount(r.token_in, r.amount_in)];
          return String(r.token_out).startsWith('inner-nep141:') ? ['Deposited ', ...amount(r.token_in, r.amount_in), ' into AmmA'] : ['Withdrew ', ...amount(r.token_out, r.amount_out), ' from AmmA'];
        }
        if (r.kind === 'transfer') return [...amount(r.token, r.amount), r.from === id ? ' to ' : ' from ', accountLink(r.from === id ? r.to : r.from)];
        // A liquidity change: each token's amount in its own decimals, not the raw fields.
        if (r.kind === 'liquidity' && Array.isArray(r.tokens) && Array.isArray(r.amounts)) {
          const parts = (r.tokens as string[]).flatMap((t, i) => [...(i ? [' + '] : []), ...amount(t, String(r.amounts[i]))]);
          return [r.action === 'remove' ? 'Removed ' : 'Added ', ...parts, r.action === 'remove' ? ' from ' : ' to ', `${r.dex} pool ${r.pool_id}`];
        }
        return [Object.entries(r).filter(([k]) => !['id', 'kind', 'block_height', 'timestamp_millis', 'tx_hash', 'receipt_id'].includes(k)).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ')];
      };
      fill(activity.body, ...rows.map((r) => h('tr', {}, h('td', {}, time(r.timestamp_millis)), h('td', {}, r.kind), h('td', {}, ...what(r)))));
      if (!rows.length) fill(activity.body, h('tr', {}, h('td', { colspan: 3 }, 'No activity')));
    })
    .catch(fail(activity.body, 3));
}
