import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * The accessibility bar (WCAG 2.2 AA): axe's serious and critical violations on the page, or only
 * inside one frame of it (`include` a selector, e.g. the Teams host page's app frame).
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
