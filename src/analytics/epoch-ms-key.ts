import type { ValueTransformer } from 'typeorm';

/** A BIGINT epoch-ms primary key read back as a number (pg returns bigint as a string). */
export const epochMsKey: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number) => Number(value),
};
