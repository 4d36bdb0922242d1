/**
 * JSON for `--json` output that keeps what JSON.stringify would lose: Map and Set become `{ "$map": [[k, v]] }` and
 * `{ "$set": [...] }`, bigint a string, typed arrays plain arrays, `undefined` `null`.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (v instanceof Map) return { $map: [...v.entries()] };
      if (v instanceof Set) return { $set: [...v] };
      if (typeof v === 'bigint') return v.toString();
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
      return v === undefined ? null : v;
    },
    2,
  );
}
