/**
 * A small self-contained HTML page (public links opened in a browser: unsubscribe, acknowledge, confirm,
 * stop paging). The URL holds a secret token, so the page is never cached and never sends a referrer.
 *
 * It shares the console's look (issue 44): its colours, the system font, dark mode when the system asks,
 * phone width; one style sheet, allowed by its hash (no style attribute anywhere). Times are `<time
 * datetime>` elements reading UTC; the console's one static script `local-time.js`, the only script the
 * page's Content-Security-Policy allows (no inline script), shows them in the reader's zone. A deployment
 * without a console loads nothing and shows UTC.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../../shared/platform/html.js';
import { consoleOrigin } from '../../shared/platform/console-links.js';
import type { HttpResult } from './middleware/types.js';

/** What a page may show besides its title and message: labelled facts, one button that POSTs back to the page's own URL, a link. */
export interface PageParts {
  facts?: [string, string][];
  button?: string;
  link?: { href: string; label: string };
}

/** The console's palette (console/src/styles.css), light and dark. */
const STYLE = `:root{color-scheme:light dark;--bg:#fff;--surface:#f6f7f9;--text:#14171c;--muted:#555d68;--line:#d5d9e0;--accent:#b42318;--accent-text:#fff;--link:#1f56c4;--focus:#1f56c4}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--surface:#1b2027;--text:#e8ebef;--muted:#a3acb8;--line:#343b46;--accent:#f0796f;--accent-text:#111418;--link:#8fb4ff;--focus:#8fb4ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Liberation Sans',sans-serif;font-size:16px;line-height:1.45}
main{max-width:36rem;margin:0 auto;padding:2rem 1rem}
h1{font-size:1.4rem;margin:0 0 .75rem}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.card{background:var(--surface);border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
button{font:inherit;font-weight:600;padding:.6em 1.2em;min-height:2.75rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);cursor:pointer}
@media (max-width:30rem){dl{grid-template-columns:1fr}dd{margin-bottom:.5rem}}`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;

/** Escaped text with each ISO instant as a `<time>` reading UTC (`2026-11-27 23:31 UTC`), for the script to localise. */
function withTimes(text: string): string {
  return escapeHtml(text).replace(ISO_INSTANT, (iso) => `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`);
}

export function htmlPage(statusCode: number, title: string, message: string, parts: PageParts = {}): HttpResult {
  const facts = parts.facts?.length
    ? `<dl class="card">${parts.facts.map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${withTimes(value)}</dd>`).join('')}</dl>`
    : '';
  const button = parts.button ? `<form method="post"><button type="submit">${escapeHtml(parts.button)}</button></form>` : '';
  const link = parts.link ? `<p><a href="${escapeHtml(parts.link.href)}">${escapeHtml(parts.link.label)}</a></p>` : '';
  const origin = consoleOrigin();
  const script = origin ? `${origin}/local-time.js` : undefined;
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; script-src ${script ?? "'none'"}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${escapeHtml(title)}</title><style>${STYLE}</style>${
      script ? `<script src="${escapeHtml(script)}" defer></script>` : ''
    }</head><body><main><h1>${escapeHtml(title)}</h1><p>${withTimes(message)}</p>${facts}${button}${link}</main></body></html>`,
  };
}
