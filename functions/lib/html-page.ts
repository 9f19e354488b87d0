/**
 * A small self-contained HTML page (public links opened in a browser: unsubscribe, acknowledge).
 * The URL holds a secret token, so the page is never cached, never sends a referrer and loads nothing.
 */
import { escapeHtml } from '../../shared/platform/html.js';
import type { HttpResult } from './middleware/types.js';

/** What a page may show besides its title and message: labelled facts, and one button that POSTs back to the page's own URL. */
export interface PageParts {
  facts?: [string, string][];
  button?: string;
}

export function htmlPage(statusCode: number, title: string, message: string, parts: PageParts = {}): HttpResult {
  const facts = parts.facts?.length
    ? `<table>${parts.facts.map(([label, value]) => `<tr><th align="left" style="padding-right:1em">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`
    : '';
  const button = parts.button
    ? `<form method="post"><button type="submit" style="font-size:1rem;padding:.6em 1.2em;margin-top:1em">${escapeHtml(parts.button)}</button></form>`
    : '';
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2937}h1{font-size:1.4rem}</style></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${facts}${button}</body></html>`,
  };
}
