/** API Gateway HTTP API route matching: exact segments, `{param}` placeholders, most specific wins. */
import { computedOnce } from './memo.js';
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

/** A route's path taken apart once: each segment a literal to equal, or the name of a parameter. */
interface Template<R> {
  route: R;
  parts: { literal: string; param?: undefined }[] | { literal?: undefined; param: string }[];
}

/** Lower is more specific: literal segments rank before placeholders, left to right. */
const specificity = (route: Routable) =>
  segments(route.path)
    .map((segment) => (placeholder.test(segment) ? '1' : '0'))
    .join('');

/** Per method and number of segments, the templates most specific first (the table's order among equals). */
type Compiled<R> = Map<string, Template<R>[]>;

const compiled = new WeakMap<readonly Routable[], Compiled<Routable>>();

function compile<R extends Routable>(routes: readonly R[]): Compiled<R> {
  const table: Compiled<R> = new Map();
  const ranked = [...routes].sort((a, b) => specificity(a).localeCompare(specificity(b)));
  for (const route of ranked) {
    const parts = segments(route.path).map((segment) => {
      const name = placeholder.exec(segment)?.[1];
      return name === undefined ? { literal: segment } : { param: name };
    }) as Template<R>['parts'];
    const key = `${route.method} ${parts.length}`;
    table.set(key, [...(table.get(key) ?? []), { route, parts }]);
  }
  return table;
}

/**
 * The route `method path` calls, with its decoded parameters. The table is taken apart once (on
 * first use of that array), not on every request.
 */
export function matchRoute<R extends Routable>(routes: readonly R[], method: string, path: string): RouteMatch<R> | undefined {
  const table = computedOnce(compiled, routes, compile) as Compiled<R>;
  const requested = segments(path);
  candidates: for (const { route, parts } of table.get(`${method} ${requested.length}`) ?? []) {
    const params: Record<string, string> = {};
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index]!;
      const value = requested[index]!;
      if (part.param === undefined) {
        if (part.literal !== value) continue candidates;
      } else {
        if (value === '') continue candidates;
        try {
          params[part.param] = decodeURIComponent(value);
        } catch {
          params[part.param] = value;
        }
      }
    }
    return { route, params };
  }
  return undefined;
}
