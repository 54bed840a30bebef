/** `a, b, c and 4 more`: keeps evidence to one readable line however large the node. */
export function listSome(items: readonly string[], max = 3): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
