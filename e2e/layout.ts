import type { Page } from 'playwright-core';

// Where a layout breaks at a narrow width (German's long words): the page scrolls sideways (WCAG
// 1.4.10 Reflow), or a word is broken inside where a line could hold it.

/** Whether the page scrolls sideways at its present width, naming the innermost elements past the edge. */
export async function scrollsSideways(page: Page): Promise<string | null> {
  const { scrollWidth, clientWidth, wide } = await page.evaluate(() => {
    const root = document.documentElement;
    // The innermost elements reaching past the right edge: what to fix when the page scrolls.
    const past = Array.from(document.body.querySelectorAll('*')).filter(
      (el) => el.getBoundingClientRect().right > root.clientWidth + 0.5,
    );
    const innermost = past.filter((el) => !past.some((other) => other !== el && el.contains(other)));
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}`;
    return {
      scrollWidth: root.scrollWidth,
      clientWidth: root.clientWidth,
      wide: innermost.slice(0, 4).map(describe),
    };
  });
  return scrollWidth > clientWidth
    ? `scrolls sideways (${scrollWidth} > ${clientWidth}: ${wide.join(', ')})`
    : null;
}

/**
 * Words broken inside although a line of the page could hold them: a button or column squeezed until
 * its words no longer fit (German's long words). Words only (letters); codes, URLs and tokens, which
 * wrap anywhere on purpose, are left out, as is a word wider than most of the screen (it must break).
 */
export async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const wrapsAnywhere = (el: Element | null) =>
      el?.closest('code, pre, kbd, samp, input, textarea') ||
      (el && getComputedStyle(el).wordBreak === 'break-all');
    // Text for assistive technology only (inside a box 1 px wide), never seen.
    const unseen = (el: Element | null): boolean =>
      el !== null && (el.getBoundingClientRect().width <= 1 || unseen(el.parentElement));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (wrapsAnywhere(node.parentElement) || unseen(node.parentElement)) continue;
      for (const match of (node.textContent ?? '').matchAll(/\p{L}{2,}/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        const lines = new Set(rects.map((r) => Math.round(r.top)));
        const width = rects.reduce((sum, r) => sum + r.width, 0);
        if (lines.size > 1 && width < document.documentElement.clientWidth * 0.8)
          broken.push(`${match[0]} in ${node.parentElement?.tagName.toLowerCase()}`);
      }
    }
    return broken.slice(0, 6);
  });
}
