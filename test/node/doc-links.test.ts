import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every link of the documentation resolves: a relative link to a file of the repository, an
// `#anchor` to a heading of its file, an unpkg link to a file the package ships (without an anchor:
// unpkg shows the file as text), a link to this repository on GitHub to a file in it. The README is
// read on the npm page, where a relative link breaks, so it links only absolutely or to its own
// headings. A file the package ships (docs/*.md, inspector/README.md) is read inside an installed
// copy too, so a relative link of it names a file the package ships as well (not DEVELOPERS.md or
// bench/: link those on GitHub).

const root = new URL('../..', import.meta.url).pathname;
const unpkg = 'https://unpkg.com/tool-output-offload/';
const github = 'https://github.com/tool-output-offload/tool-output-offload/blob/main/';
/** Images are shown from GitHub's raw files: the package ships none (no shipped doc needs a copy). */
const raw = 'https://raw.githubusercontent.com/tool-output-offload/tool-output-offload/main/';

/** The Markdown files whose links are checked, relative to the repository's root. */
const documents = [
  'README.md',
  'DEVELOPERS.md',
  'bench/README.md',
  'inspector/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The targets of the inline links and images of a Markdown text. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** The anchors GitHub gives a text's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  return anchors;
}

/** Whether npm packs a path: package.json's `files` (a folder, a file or a `*` pattern) plus what npm always adds. */
function packed(path: string, files: readonly string[]): boolean {
  if (['README.md', 'LICENSE', 'package.json'].includes(path)) return true;
  return files.some((entry) => {
    if (!entry.includes('*')) return path === entry || path.startsWith(`${entry}/`);
    const pattern = entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
    return new RegExp(`^${pattern}$`).test(path);
  });
}

type Read = (path: string) => string | undefined;

/** Why a link of `document` does not resolve, or undefined when it does. */
function brokenLink(document: string, target: string, read: Read, files: readonly string[]): string | undefined {
  const [location = '', anchor] = target.split('#');
  let path: string;
  if (target.startsWith(unpkg)) {
    path = location.slice(unpkg.length);
    if (!packed(path, files)) return 'names a file the package does not ship';
    if (anchor !== undefined) return 'has an anchor, which unpkg ignores (it shows the file as text)';
  } else if (target.startsWith(github)) {
    path = location.slice(github.length);
  } else if (target.startsWith(raw)) {
    path = location.slice(raw.length);
  } else if (/^[a-z]+:/i.test(target)) {
    return undefined; // another site: not checked here
  } else if (location === '') {
    path = document;
  } else if (document === 'README.md') {
    return 'is relative, which breaks on the npm page';
  } else {
    path = normalize(join(dirname(document), location));
    if (packed(document, files) && !packed(path, files)) {
      return `names ${path}, which the package does not ship (the link breaks in an installed copy: link it on GitHub)`;
    }
  }
  const text = read(path);
  if (text === undefined) return `names ${path}, which does not exist`;
  if (anchor !== undefined && path.endsWith('.md') && !headingAnchors(text).has(anchor)) {
    return `names #${anchor}, which is no heading of ${path}`;
  }
  return undefined;
}

/** Every `document: target (why)` that does not resolve. */
function brokenLinks(paths: readonly string[], read: Read, files: readonly string[]): string[] {
  return paths.flatMap((document) =>
    linkTargets(read(document) ?? '').flatMap((target) => {
      const why = brokenLink(document, target, read, files);
      return why === undefined ? [] : [`${document}: ${target} ${why}`];
    }),
  );
}

const readRepository: Read = (path) => {
  const full = join(root, path);
  if (!existsSync(full)) return undefined;
  return path.endsWith('.md') ? readFileSync(full, 'utf8') : '';
};
const packageFiles: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files;

describe('links in the documentation', () => {
  it('resolve: files exist, anchors are headings, unpkg links name shipped files', () => {
    expect(documents).toEqual(
      expect.arrayContaining(['README.md', 'DEVELOPERS.md', 'bench/README.md', 'docs/RULES.md']),
    );
    const targets = documents.flatMap((document) => linkTargets(readRepository(document) ?? ''));
    expect(targets.length).toBeGreaterThan(20);
    expect(brokenLinks(documents, readRepository, packageFiles)).toEqual([]);
  });

  it('the check names each link that does not resolve, and why', () => {
    const texts: Record<string, string> = {
      'README.md': [
        '# Title',
        '## Token estimates',
        '[ok](#token-estimates) [gone](#tokens) [rel](docs/a.md)',
        `[shipped](${unpkg}docs/a.md) [unshipped](${unpkg}bench/README.md) [part](${unpkg}docs/a.md#part-one)`,
        `[gh](${github}bench/README.md#figures) [missing](${github}nope.md) [far](https://example.com/x)`,
        `![shot](${raw}docs/b.png) ![gone](${raw}docs/gone.png)`,
        '`[code](#not-a-link)`',
      ].join('\n'),
      'docs/a.md':
        '# A\n## Part one\n[up](../README.md#title) [img](b.png) [lost](c.png) [here](#part-two) [dev](../bench/README.md)',
      'DEVELOPERS.md': '# Dev\n[bench](bench/README.md)',
      'docs/b.png': '',
      'bench/README.md': '# Bench\n## Figures',
    };
    const read: Read = (path) => texts[path];
    expect(brokenLinks(['README.md', 'docs/a.md', 'DEVELOPERS.md'], read, ['docs/*.md', 'docs/*.png'])).toEqual([
      'README.md: #tokens names #tokens, which is no heading of README.md',
      'README.md: docs/a.md is relative, which breaks on the npm page',
      `README.md: ${unpkg}bench/README.md names a file the package does not ship`,
      `README.md: ${unpkg}docs/a.md#part-one has an anchor, which unpkg ignores (it shows the file as text)`,
      `README.md: ${github}nope.md names nope.md, which does not exist`,
      `README.md: ${raw}docs/gone.png names docs/gone.png, which does not exist`,
      'docs/a.md: c.png names docs/c.png, which does not exist',
      'docs/a.md: #part-two names #part-two, which is no heading of docs/a.md',
      'docs/a.md: ../bench/README.md names bench/README.md, which the package does not ship (the link breaks in an installed copy: link it on GitHub)',
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    const anchors = headingAnchors('## LangChain.js\n## Using a real model: `openAICompatibleModel`\n## A\n## A');
    expect([...anchors]).toEqual(['langchainjs', 'using-a-real-model-openaicompatiblemodel', 'a', 'a-1']);
  });
});
