/**
 * Portable column helpers: the same entity works on SQLite and Postgres.
 * - Times are epoch milliseconds in a BIGINT column (pg returns bigint as a string; the
 *   transformer turns it back into a number), so hourly bucketing is plain arithmetic in both.
 * - JSON is stored as text.
 */
import { Column, ColumnOptions, ValueTransformer } from 'typeorm';

const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};

/** Epoch-millisecond timestamp. */
export function EpochMsColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: bigintToNumber, ...options });
}

/** An integer that may exceed 2^31 (token counts, sizes). */
export function BigIntColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: bigintToNumber, ...options });
}

/** A float (cost in USD, confidence). `double precision` in Postgres, REAL in SQLite. */
export function FloatColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'double precision', transformer: bigintToNumber, ...options });
}

/** JSON value stored as text. */
export function JsonColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'simple-json', ...options });
}
