/**
 * Measures values on the host the way they travel: roughly the bytes of their structured-clone form. Walks the
 * value once without recursion (deep values cannot overflow the host stack) and stops as soon as `limit` is passed,
 * so a huge value costs no more than the limit to reject.
 */
export function payloadBytes(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  let seen: Set<object> | undefined;
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop();
    switch (typeof item) {
      case 'string':
        total += item.length + 2;
        continue;
      case 'number':
        total += 9;
        continue;
      case 'bigint':
        total += 2 + Math.ceil(item.toString(16).length / 2);
        continue;
      case 'object':
        break;
      default:
        total += 1;
        continue;
    }
    if (item === null) {
      total += 1;
      continue;
    }
    seen ??= new Set();
    if (seen.has(item)) {
      total += 2;
      continue;
    }
    seen.add(item);
    if (ArrayBuffer.isView(item)) total += item.byteLength + 8;
    else if (item instanceof ArrayBuffer) total += item.byteLength + 4;
    else if (item instanceof Date) total += 9;
    else if (item instanceof RegExp) total += item.source.length + 4;
    else if (item instanceof Map) {
      total += 4 + item.size;
      if (total <= limit) for (const [k, v] of item) stack.push(k, v);
    } else if (item instanceof Set) {
      total += 4 + item.size;
      if (total <= limit) for (const v of item) stack.push(v);
    } else if (Array.isArray(item)) {
      total += 4 + item.length;
      if (total <= limit) for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else {
      total += 2;
      for (const key of Object.keys(item)) {
        total += key.length + 2;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}
