/**
 * The documentation's relative links lead somewhere: every `[text](path#anchor)` in README.md and
 * docs/*.md names a file of the repository and, with an anchor, a heading of that file (GitHub's
 * anchors: lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` for repeats). Moving a
 * section from one file to another breaks such links silently otherwise.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';

const documents = ['README.md', ...readdirSync(join(repositoryRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The anchors GitHub gives a Markdown file's headings (outside code blocks). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Each relative link of a document that leads nowhere, as `file: link (why)`. */
function brokenLinks(document: string): string[] {
  const text = readFileSync(join(repositoryRoot, document), 'utf8');
  const broken: string[] = [];
  for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(link!)) continue;
    const [path, anchor] = link!.split('#');
    const target = path ? normalize(join(dirname(document), path)) : document;
    if (relative(repositoryRoot, join(repositoryRoot, target)).startsWith('..') || !existsSync(join(repositoryRoot, target))) {
      broken.push(`${document}: ${link} (no file ${target})`);
    } else if (anchor && target.endsWith('.md') && !headingAnchors(readFileSync(join(repositoryRoot, target), 'utf8')).has(anchor)) {
      broken.push(`${document}: ${link} (no heading #${anchor} in ${target})`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('gives headings the anchors GitHub gives them', () => {
    expect([...headingAnchors('# A `b` (c)\n## Getting a token\n```sh\n# not a heading\n```\n### Getting a token\n#### Tear-down: 1, 2')]).toEqual([
      'a-b-c',
      'getting-a-token',
      'getting-a-token-1',
      'tear-down-1-2',
    ]);
  });

  it.each(documents)('%s: every relative link names a file and, with an anchor, one of its headings', (document) => {
    expect(brokenLinks(document)).toEqual([]);
  });
});
