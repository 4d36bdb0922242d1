// Declarations the typecheck tests check agent code against.

// As the compiler emits it (seed 002, "Generated Code API").
const TRAIN_SCHEDULE = `declare module '@capabilities/train-schedule' {
  export interface Trip {
    id: string;
    hour: number;
    minute: number;
    destination: string;
    platform: string;
  }
  export interface TrainDetails {
    id: string;
    operator: string;
    stops: string[];
  }
  export interface GetScheduleParams {
    station?: string;
    date?: string;
  }
  export interface GetTrainDetailsParams {
    trainId: string;
  }
  export const trainSchedule: {
    getSchedule(params?: GetScheduleParams): Promise<Trip[]>;
    getTrainDetails(params: GetTrainDetailsParams): Promise<TrainDetails>;
  };
}
`;

const STD = `declare module '@agent-spaces/std' {
  export const json: { parse(text: string): unknown; stringify(value: unknown, space?: number): string };
  export const crypto: { randomUUID(): Promise<string>; hash(algorithm: 'sha256', data: string): Promise<string> };
}
`;

const GLOBALS = `interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
declare var console: Console;
declare class CapabilityError extends Error {
  readonly code: string;
  readonly capability: string;
  readonly function: string;
}
declare class ApprovalDeniedError extends CapabilityError {}
`;

export const NOTES = `declare module '@capabilities/notes' {
  export const notes: { create(params: { title: string; content: string }): Promise<{ id: string }> };
}
`;

export const declarations = new Map([
  ['train-schedule.d.ts', TRAIN_SCHEDULE],
  ['std.d.ts', STD],
  ['sandbox-globals.d.ts', GLOBALS],
]);
