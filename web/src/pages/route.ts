// The route tester: a form for GET /route (the parameters as /openapi.json documents them), every quote with its
// rank and why (its amount, and its value net of gas and storage at indexed prices), its instructions decoded
// (method, args as JSON, gas, deposit), and, when asked, the same query followed live over /route/subscribe.
import { api, data, RouteSocket, tokenInfo, type paths } from '../api.ts';
import { fill, h, section } from '../dom.ts';
import { near, time, toUnits, units, usd } from '../format.ts';

type Quote = Record<string, any>;
type RouteQuery = paths['/route']['get']['parameters']['query'];

const DEFAULTS: Record<string, string> = {
  token_in: 'near',
  token_out: 'usdt.tether-token.near',
  amount: '1',
  mode: 'amount_in',
  slippage_type: 'Fixed',
  slippage: '0.005',
  min_slippage: '0.001',
  max_slippage: '0.05',
  max_wait_ms: '1000',
  trader_account_id: '',
};

const field = (label: string, input: HTMLElement, hint?: string) => h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hint ? h('small', {}, hint) : null);

/** base64 JSON args -> pretty JSON (or the text as it is). */
function decodeArgs(args: string): string {
  try {
    const text = new TextDecoder().decode(Uint8Array.from(atob(args), (c) => c.charCodeAt(0)));
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  } catch {
    return args;
  }
}

export function routePage(main: HTMLElement, queryText: string): () => void {
  const initial = { ...DEFAULTS, ...Object.fromEntries(new URLSearchParams(queryText)) };
  const input = (name: string, attrs: Record<string, string> = {}) => h('input', { id: `f-${name}`, name, value: initial[name] ?? '', autocomplete: 'off', spellcheck: 'false', ...attrs });
  const tokensList = h('datalist', { id: 'token-ids' });
  const mode = h('select', { id: 'f-mode', name: 'mode' }, h('option', { value: 'amount_in' }, 'exact in'), h('option', { value: 'amount_out' }, 'exact out'));
  mode.value = initial.mode!;
  const slippageType = h('select', { id: 'f-slippage_type', name: 'slippage_type' }, h('option', { value: 'Fixed' }, 'Fixed'), h('option', { value: 'Auto' }, 'Auto'));
  slippageType.value = initial.slippage_type!;
  const dexBox = h('fieldset', { class: 'dexes' }, h('legend', {}, 'DEXes (none checked: all)'));
  const live = h('input', { type: 'checkbox', id: 'f-live', name: 'live', checked: initial.live === '1' });
  const status = h('p', { role: 'status', class: 'muted' });
  const results = h('ol', { class: 'quotes', 'aria-label': 'Quotes, best first' });
  const form = h(
    'form',
    { class: 'route-form' },
    field('Token in', input('token_in', { list: 'token-ids', required: 'true' }), 'near, or a token contract id'),
    field('Token out', input('token_out', { list: 'token-ids', required: 'true' })),
    field('Amount', input('amount', { inputmode: 'decimal', required: 'true' }), 'in whole tokens'),
    field('Mode', mode),
    field('Slippage type', slippageType),
    field('Slippage (Fixed)', input('slippage', { inputmode: 'decimal' }), '0.005 is 0.5 %'),
    field('Min slippage (Auto)', input('min_slippage', { inputmode: 'decimal' })),
    field('Max slippage (Auto)', input('max_slippage', { inputmode: 'decimal' })),
    field('Trader account', input('trader_account_id', { placeholder: 'optional: adds storage steps' })),
    field('Max wait (ms)', input('max_wait_ms', { inputmode: 'numeric' }), 'for request-for-quote DEXes'),
    dexBox,
    h('div', { class: 'field inline' }, live, h('label', { for: 'f-live' }, 'Follow live (/route/subscribe)')),
    h('button', { type: 'submit', class: 'primary' }, 'Get quotes'),
    tokensList,
  );
  fill(main, h('h1', {}, 'Route tester'), section('Query', form), section('Quotes', status, results));

  // The DEX ids and the token ids to offer.
  void fetch('/openapi.json')
    .then((r) => r.json())
    .then((doc: Record<string, any>) => {
      const ids: string[] = doc.paths['/route'].get.parameters.find((p: { name: string }) => p.name === 'dexes').schema.items.enum;
      const chosen = new Set((initial.dexes ?? '').split(',').filter(Boolean));
      for (const id of ids) dexBox.append(h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'dex', value: id, checked: chosen.has(id) }), id));
    });
  void data(api.GET('/tokens', { params: { query: { fields: ['symbol'], limit: 100 } } })).then((t) => {
    for (const row of [['near', 'NEAR'], ...t.rows]) tokensList.append(h('option', { value: String(row[0]) }, String(row[1] ?? '')));
  });

  let socket: RouteSocket | undefined;
  let context: { tokenOut: string; output: { decimals: number | null; symbol: string | null }; query: URLSearchParams } | undefined;

  const render = async (quotes: Quote[], how: string) => {
    if (!context) return;
    const { output } = context;
    // Prices to value the costs in the output token, as the router ranks: NEAR's and the output token's.
    const prices = await data(api.GET('/tokens', { params: { query: { ids: ['near', 'wrap.near', context.tokenOut], fields: ['price_usd'] } } })).catch(() => null);
    const price = (id: string) => Number(prices?.rows.find((r) => r[0] === id)?.[1] ?? NaN);
    const nearUsd = Number.isFinite(price('near')) ? price('near') : price('wrap.near');
    const outUsd = price(context.tokenOut === 'near' ? 'wrap.near' : context.tokenOut);
    status.textContent = quotes.length ? `${quotes.length} quotes, best first (${how}, ${time(Date.now())})` : `No route (${how})`;
    main.dataset.routeAnswers = String(Number(main.dataset.routeAnswers ?? 0) + 1);
    fill(
      results,
      ...quotes.map((q, i) => {
        const amountKey = 'amount_out' in q.estimated_amount ? 'amount_out' : 'amount_in';
        const estimated = q.estimated_amount[amountKey] as string;
        const worst = q.worst_case_amount[amountKey] as string;
        // What ranking charges: the gas the calls burn (at 10^8 yocto a gas unit) and the storage deposits.
        const burnYocto = (BigInt(q.estimated_gas_usage) * 100_000_000n).toString();
        const costNear = Number(near(burnYocto, 12).replace(/,/g, '')) + Number(near(q.storage_deposits, 12).replace(/,/g, ''));
        const costUsd = costNear * nearUsd;
        const amountUsd = Number(units(estimated, output.decimals, 12).replace(/,/g, '')) * outUsd;
        const net = Number.isFinite(costUsd) && Number.isFinite(amountUsd) ? (amountKey === 'amount_out' ? amountUsd - costUsd : -(amountUsd + costUsd)) : null;
        const symbol = output.symbol ?? context!.tokenOut;
        return h(
          'li',
          { class: 'quote', 'data-dex': q.dex_id },
          h(
            'div',
            { class: 'quote-head' },
            h('span', { class: 'rank' }, `#${i + 1}`),
            h('strong', {}, q.dex_id),
            h('span', { class: 'amount' }, `${amountKey === 'amount_out' ? 'receive' : 'pay'} ${units(estimated, output.decimals)} ${symbol}`),
            h('span', { class: 'muted' }, `worst case ${units(worst, output.decimals)}`),
          ),
          h(
            'p',
            { class: 'why' },
            `Gas ${near(burnYocto)} NEAR (at most ${near(q.estimated_max_gas_cost)}) + storage ${near(q.storage_deposits)} NEAR`,
            Number.isFinite(costUsd) ? ` (${usd(costUsd, 3)})` : '',
            net === null ? ' · ranked by amount (no price to value the costs)' : ` · net of costs ${usd(net, 6)}`,
            q.deadline ? ` · deadline ${q.deadline}` : '',
            q.needs_unwrap ? ' · output is wNEAR: unwrap after' : '',
            ` · gas ${(Number(q.estimated_gas_usage) / 1e12).toFixed(2)} TGas`,
          ),
          h(
            'details',
            {},
            h('summary', {}, `Instructions (${q.execution_instructions.length})`),
            ...q.execution_instructions.map((step: Quote, n: number) =>
              step.NearTransaction
                ? h(
                    'div',
                    { class: 'tx' },
                    h('p', {}, `${n + 1}. Transaction to `, h('code', {}, step.NearTransaction.receiver_id)),
                    ...step.NearTransaction.actions.map((a: Quote) =>
                      h(
                        'div',
                        { class: 'action' },
                        h('p', {}, h('code', {}, a.FunctionCall.method_name), ` · gas ${(Number(a.FunctionCall.gas) / 1e12).toFixed(0)} TGas · deposit ${near(a.FunctionCall.deposit)} NEAR`),
                        h('pre', {}, decodeArgs(a.FunctionCall.args)),
                      ),
                    ),
                  )
                : h('div', { class: 'tx' }, h('p', {}, `${n + 1}. Message to sign`), h('pre', {}, JSON.stringify(step, null, 2))),
            ),
          ),
        );
      }),
    );
  };

  const submit = async () => {
    const form_ = new FormData(form);
    const value = (name: string) => String(form_.get(name) ?? '').trim();
    const tokenIn = value('token_in');
    const tokenOut = value('token_out');
    const exactIn = value('mode') === 'amount_in';
    const info = await tokenInfo([tokenIn, tokenOut].filter((t) => t !== 'near'));
    const decimalsOf = (id: string) => (id === 'near' ? 24 : (info.get(id)?.decimals ?? null));
    const amountToken = exactIn ? tokenIn : tokenOut;
    const d = decimalsOf(amountToken);
    const amount = d === null ? value('amount') : toUnits(value('amount'), d);
    const q: RouteQuery = { token_in: tokenIn, token_out: tokenOut, max_wait_ms: Number(value('max_wait_ms')), slippage_type: value('slippage_type') as RouteQuery['slippage_type'] };
    q[exactIn ? 'amount_in' : 'amount_out'] = amount ?? value('amount');
    if (q.slippage_type === 'Fixed') q.slippage = value('slippage');
    else (q.min_slippage = value('min_slippage')), (q.max_slippage = value('max_slippage'));
    if (value('trader_account_id')) q.trader_account_id = value('trader_account_id');
    const dexes = form_.getAll('dex').map(String) as NonNullable<RouteQuery['dexes']>;
    if (dexes.length) q.dexes = dexes;
    const query = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
    const shown = exactIn ? tokenOut : tokenIn;
    context = { tokenOut: shown, output: { decimals: decimalsOf(shown), symbol: shown === 'near' ? 'NEAR' : (info.get(shown)?.symbol ?? null) }, query };
    history.replaceState(null, '', `#/route?${new URLSearchParams({ ...Object.fromEntries(query), amount: value('amount'), mode: value('mode'), ...(live.checked ? { live: '1' } : {}) })}`);
    status.textContent = 'Routing...';
    socket?.close();
    socket = undefined;
    if (live.checked) {
      socket = new RouteSocket(
        (routes) => void render(routes, 'live'),
        (message) => (status.textContent = message),
      );
      await socket.follow(query.toString());
      return;
    }
    const { data: quotes, error, response } = await api.GET('/route', { params: { query: q } });
    if (!response.ok) {
      fill(results);
      status.textContent = `${response.status}: ${String(error ?? '')}`;
      return;
    }
    await render(quotes ?? [], 'GET /route');
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  if (queryText) void submit();
  return () => socket?.close();
}
