import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  color: string;
  values: (number | null)[];
}

/**
 * A line chart (uPlot, canvas) of one or more series over time in seconds. The canvas cannot be
 * read by a screen reader, so the caption and the figures around it carry what it shows.
 */
export function Chart(props: {
  title: string;
  times: number[];
  series: Series[];
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || props.times.length < 2) return;
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth || 640),
        height: props.height ?? 220,
        series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5 }))],
        axes: [{}, { size: 70 }],
        legend: { show: true },
      },
      [props.times, ...props.series.map((s) => s.values)],
      el,
    );
    el.dataset.series = String(props.series.length);
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(320, el.clientWidth), height: props.height ?? 220 }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.times, props.series, props.height]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {props.times.length < 2 ? (
        <p>No points yet.</p>
      ) : (
        <div ref={host} class="plot" role="img" aria-label={props.title} />
      )}
    </figure>
  );
}
