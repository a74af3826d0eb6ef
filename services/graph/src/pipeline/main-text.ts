import { load } from 'cheerio';

/** A page's HTML reduced to what a reader would read. */
export interface PageContent {
  title: string;
  text: string;
  /** Every `<a href>` as written (resolved by the caller). */
  links: string[];
  /** `<link rel="canonical">` when present. */
  canonical: string | null;
}

const BOILERPLATE =
  'script, style, noscript, template, svg, iframe, nav, header, footer, aside, form, button, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], .nav, .navbar, .menu, .sidebar, .footer, .cookie, .cookies';
const BLOCKS = 'p, div, section, article, li, h1, h2, h3, h4, h5, h6, tr, br, pre, blockquote, dd, dt';

/** Title, main-content text (navigation, scripts and boilerplate removed; `<main>`/`<article>` preferred), links. */
export function extractContent(html: string): PageContent {
  const $ = load(html);
  const links = $('a[href]')
    .map((_, el) => $(el).attr('href') ?? '')
    .get()
    .filter(Boolean);
  const canonical = $('link[rel=canonical]').attr('href') ?? null;
  const title = $('title').first().text().trim() || $('h1').first().text().trim();
  $(BOILERPLATE).remove();
  const root = $('main').first().length
    ? $('main').first()
    : $('article').first().length
      ? $('article').first()
      : $('body');
  root.find(BLOCKS).each((_, el) => {
    $(el).append('\n');
  });
  const text = root
    .text()
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  return { title, text, links, canonical };
}
