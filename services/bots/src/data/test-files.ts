import { writeFileSync } from "node:fs";
import {
  Float64,
  Table,
  TimestampMillisecond,
  Utf8,
  makeVector,
  tableToIPC,
  vectorFromArray,
} from "apache-arrow";
import { parquetWriteBuffer } from "hyparquet-writer";

/** Rows of a sample multi-symbol file: `perSymbol` one-minute bars of each symbol, interleaved. */
export interface SampleRow {
  symbol: string;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export function sampleRows(
  symbols: string[],
  perSymbol: number,
  startMs = Date.UTC(2024, 0, 1),
): SampleRow[] {
  const rows: SampleRow[] = [];
  for (let i = 0; i < perSymbol; i++)
    symbols.forEach((symbol, k) => {
      const base = 100 * (k + 1) + Math.sin(i / 17) * 5 + i * 0.01;
      rows.push({
        symbol,
        time: startMs + i * 60_000,
        open: base,
        high: base + 1,
        low: base - 1,
        close: base + 0.5,
        volume: 10 + (i % 7),
      });
    });
  return rows;
}

export function csvOf(rows: SampleRow[], withSymbol = true): string {
  const head = withSymbol
    ? "symbol,timestamp,open,high,low,close,volume"
    : "timestamp,open,high,low,close,volume";
  const body = rows.map((r) =>
    [
      ...(withSymbol ? [r.symbol] : []),
      new Date(r.time).toISOString(),
      r.open,
      r.high,
      r.low,
      r.close,
      r.volume,
    ].join(","),
  );
  return `${head}\n${body.join("\n")}\n`;
}

/** A Parquet file of the rows (time as TIMESTAMP), cut into row groups of `rowGroupSize`. */
export function parquetOf(rows: SampleRow[], rowGroupSize: number): ArrayBuffer {
  return parquetWriteBuffer({
    columnData: [
      { name: "symbol", data: rows.map((r) => r.symbol), type: "STRING" },
      { name: "timestamp", data: rows.map((r) => new Date(r.time)), type: "TIMESTAMP" },
      { name: "open", data: rows.map((r) => r.open), type: "DOUBLE" },
      { name: "high", data: rows.map((r) => r.high), type: "DOUBLE" },
      { name: "low", data: rows.map((r) => r.low), type: "DOUBLE" },
      { name: "close", data: rows.map((r) => r.close), type: "DOUBLE" },
      { name: "volume", data: rows.map((r) => r.volume), type: "DOUBLE" },
    ],
    rowGroupSize,
  });
}

/** An Arrow IPC file of the rows, in record batches of `batchSize`. */
export function arrowOf(rows: SampleRow[], batchSize: number): Uint8Array {
  const batches: Table[] = [];
  for (let at = 0; at < rows.length; at += batchSize) {
    const part = rows.slice(at, at + batchSize);
    const col = (k: "open" | "high" | "low" | "close" | "volume") =>
      makeVector({ type: new Float64(), data: Float64Array.from(part.map((r) => r[k])) });
    batches.push(
      new Table({
        symbol: vectorFromArray(
          part.map((r) => r.symbol),
          new Utf8(),
        ),
        timestamp: vectorFromArray(
          part.map((r) => r.time),
          new TimestampMillisecond(),
        ),
        open: col("open"),
        high: col("high"),
        low: col("low"),
        close: col("close"),
        volume: col("volume"),
      }),
    );
  }
  return tableToIPC(
    batches.reduce((a, b) => a.concat(b)),
    "file",
  );
}

export function writeSample(path: string, data: ArrayBuffer | Uint8Array | string): void {
  writeFileSync(path, typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer));
}
