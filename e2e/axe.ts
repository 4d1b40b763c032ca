import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * The builder every check here starts from. axe reports its violations in full, but the rules that
 * pass or do not apply only by count (`resultTypes`): no unique selector for every node of the page.
 * A page without frames is checked where it is (axe's legacy mode): the default mode opens a blank
 * page for every check to merge the frames' results in, about 2.4 times the time on these screens.
 * A page with frames keeps the default mode, which reaches into each of them.
 */
const axeOn = (page: Page) =>
  new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).setLegacyMode(page.frames().length === 1);

/**
 * The accessibility bar (WCAG 2.2 AA): axe's serious and critical violations on the page, or only
 * inside one frame of it (`include` a selector, e.g. the Teams host page's app frame).
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  let builder = axeOn(page).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Serious and critical contrast failures only (inside `include`, when given): all a colour scheme
 * changes, since the schemes differ in the stylesheet's colour variables and nothing else.
 */
export async function contrastViolations(page: Page, include?: string): Promise<string[]> {
  let builder = axeOn(page).withRules(['color-contrast', 'link-in-text-block']);
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const WIDTHS = [320, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;

/**
 * axe's serious and critical findings at 320 and 1280 CSS px, in light and dark mode, named by
 * screen (only inside the frame `include` selects, when given): every rule in light mode, the colour
 * rules again in dark mode (the rest would look at the same page twice: about 40 % of the journeys'
 * axe time). The page is left at 1280 px in light mode.
 */
export async function axeEverywhere(page: Page, screen: string, include?: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      const violations =
        scheme === 'light' ? await seriousViolations(page, include) : await contrastViolations(page, include);
      for (const violation of violations) found.push(`${screen} @${width} ${scheme}: ${violation}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}
