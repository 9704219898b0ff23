// A candle chart (TradingView's lightweight-charts, loaded on first use) with its volume bars, for the token and
// pool pages. `show` replaces its candles; the box says how many it shows (data-candles) and how its price axis labels
// the lowest and highest price (data-price-low, data-price-high). `resolutionSwitch`: the buttons that choose its
// resolution.
import type { IChartApi, ISeriesApi, UTCTimestamp } from 'lightweight-charts';
import { fill, h } from './dom.ts';
import { axisPrice } from './format.ts';

export const RESOLUTIONS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** The chart's resolution buttons (1m first); `chosen` is told of each new choice. */
export function resolutionSwitch(chosen: (resolution: Resolution) => void): { el: HTMLElement; value: () => Resolution } {
  let resolution: Resolution = '1m';
  const el = h('div', { class: 'switch', role: 'group', 'aria-label': 'Chart resolution' });
  const render = () =>
    fill(
      el,
      ...RESOLUTIONS.map((r) => h('button', { type: 'button', 'aria-pressed': r === resolution ? 'true' : 'false', onclick: () => ((resolution = r), render(), chosen(r)) }, r)),
    );
  render();
  return { el, value: () => resolution };
}

/**
 * 1 / the axis's smallest step: 4 significant digits of the lowest positive price, never coarser than a cent (an
 * integer, which lightweight-charts takes without the float error a step of 1e-11 would carry).
 */
function priceBase(prices: readonly number[]): number {
  const lowest = Math.min(...prices.filter((p) => p > 0));
  if (!Number.isFinite(lowest)) return 100;
  return Math.max(100, 10 ** (3 - Math.floor(Math.log10(lowest))));
}

export interface CandleData {
  time_millis: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume_quote: string;
}

export class CandleChart {
  #chart: IChartApi | undefined;
  #candles: ISeriesApi<'Candlestick'> | undefined;
  #volumes: ISeriesApi<'Histogram'> | undefined;
  #removed = false;

  constructor(readonly box: HTMLElement) {}

  async show(candles: readonly CandleData[], fit: boolean): Promise<void> {
    if (!this.#chart) {
      const { createChart, CandlestickSeries, HistogramSeries, ColorType } = await import('lightweight-charts');
      if (this.#removed || this.#chart) return;
      this.#chart = createChart(this.box, {
        autoSize: true,
        layout: { background: { type: ColorType.Solid, color: '#11151c' }, textColor: '#c9d1d9', attributionLogo: false },
        grid: { vertLines: { color: '#1f2630' }, horzLines: { color: '#1f2630' } },
        timeScale: { timeVisible: true, secondsVisible: false },
      });
      this.#candles = this.#chart.addSeries(CandlestickSeries, { upColor: '#3fb950', downColor: '#f85149', borderVisible: false, wickUpColor: '#3fb950', wickDownColor: '#f85149' });
      this.#volumes = this.#chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, color: '#30506e' });
      this.#chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    }
    if (this.#removed) return;
    const t = (ms: number) => (ms / 1000) as UTCTimestamp;
    const bars = candles.map((c) => ({ time: t(c.time_millis), open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) }));
    // The axis's step follows the prices: the default (0.01, two decimals) reads a Launch token's 0.00000001234 as 0.00.
    this.#candles!.applyOptions({ priceFormat: { type: 'custom', formatter: axisPrice, base: priceBase(bars.map((b) => b.low)) } });
    this.#candles!.setData(bars);
    this.#volumes!.setData(candles.map((c) => ({ time: t(c.time_millis), value: Number(c.volume_quote) })));
    this.box.dataset.candles = String(candles.length);
    // The axis's labels of the lowest and highest price shown, as its own formatter writes them.
    const format = this.#candles!.priceFormatter();
    this.box.dataset.priceLow = bars.length ? format.format(Math.min(...bars.map((b) => b.low))) : '';
    this.box.dataset.priceHigh = bars.length ? format.format(Math.max(...bars.map((b) => b.high))) : '';
    if (fit) this.#chart!.timeScale().fitContent();
  }

  remove(): void {
    this.#removed = true;
    this.#chart?.remove();
  }
}
