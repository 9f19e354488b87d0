/** API Gateway HTTP API route matching: exact segments, `{param}` placeholders, most specific wins. */
export interface Routable {
  method: string;
  path: string;
}

export interface RouteMatch<R extends Routable> {
  route: R;
  params: Record<string, string>;
}

const segments = (path: string) => path.split('/').slice(1);
const placeholder = /^\{([A-Za-z0-9_]+)\}$/;

/** Lower is more specific: literal segments rank before placeholders, left to right. */
const specificity = (route: Routable) =>
  segments(route.path)
    .map((segment) => (placeholder.test(segment) ? '1' : '0'))
    .join('');

export function matchRoute<R extends Routable>(routes: readonly R[], method: string, path: string): RouteMatch<R> | undefined {
  const requested = segments(path);
  const matches: RouteMatch<R>[] = [];
  for (const route of routes) {
    if (route.method !== method) continue;
    const template = segments(route.path);
    if (template.length !== requested.length) continue;
    const params: Record<string, string> = {};
    const matched = template.every((segment, index) => {
      const value = requested[index] ?? '';
      const name = placeholder.exec(segment)?.[1];
      if (name === undefined) return segment === value;
      if (value === '') return false;
      try {
        params[name] = decodeURIComponent(value);
      } catch {
        params[name] = value;
      }
      return true;
    });
    if (matched) matches.push({ route, params });
  }
  matches.sort((a, b) => specificity(a.route).localeCompare(specificity(b.route)));
  return matches[0];
}
