import type { OptionRule } from "../contracts/option-rule.js";
import { RenderError } from "../errors.js";
import { str, strings } from "./spec.js";
import { xpathSyntaxError } from "./xpath-syntax.js";

/** XPath variants of the interaction options (issue 11 follow-up): click_x, click_all_x, scroll_to_x. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md). */
export const XPATH_OPTIONS = {
  clickX: strings(
    "XPath 1.0 expression whose first matching element is clicked before capture, as `click` does for a CSS selector; repeat the option for several, clicked in order after every `click` (commas belong to XPath, so they do not separate expressions). An expression matching nothing is skipped, or fails the render with `fail_if_selector_missing`. Every format.",
    { maxItems: 20, maxLength: 2048 },
  ),
  clickAllX: strings(
    "XPath 1.0 expression whose every matching element is clicked before capture (hidden ones are skipped), as `click_all` does for a CSS selector; repeatable, in order, after every `click_all`. An expression matching nothing is skipped, or fails the render with `fail_if_selector_missing`. Every format.",
    { maxItems: 20, maxLength: 2048 },
  ),
  scrollToX: str(
    "XPath 1.0 expression whose first matching element is scrolled to the top of the viewport before capture, as `scroll_to` does for a CSS selector (digits alone scroll the window to that offset in CSS pixels, as with `scroll_to`). Cannot be combined with `scroll_to`. Nothing matching leaves the page where it is, or fails the render with `fail_if_selector_missing`. A `full_page` capture or PDF still shows the whole document.",
    { maxLength: 2048 },
  ),
} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const XPATH_RULES: readonly OptionRule[] = [
  {
    option: "scrollToX",
    when: (o) => isSet(o.scrollTo) && isSet(o.scrollToX),
    why: "cannot be used with scroll_to: the page scrolls to one place (give one of them)",
  },
];

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/** `scroll_to_x` digits: a window offset, as `scroll_to` takes them (not an XPath number). */
export function isScrollOffset(value: string): boolean {
  return /^\d+$/.test(value.trim());
}

/** The XPath expressions of a request, by option (snake_case), as the page will receive them. */
export function xpathExpressions(options: {
  clickX?: readonly string[];
  clickAllX?: readonly string[];
  scrollToX?: string;
}): [option: string, expression: string][] {
  const found: [string, string][] = [];
  for (const expression of options.clickX ?? []) found.push(["click_x", expression]);
  for (const expression of options.clickAllX ?? []) found.push(["click_all_x", expression]);
  const scroll = options.scrollToX;
  if (scroll !== undefined && scroll.trim() !== "" && !isScrollOffset(scroll)) found.push(["scroll_to_x", scroll]);
  return found;
}

/** A shortened expression for messages. */
export function shownXPath(expression: string): string {
  return expression.length > 80 ? `${expression.slice(0, 80)}…` : expression;
}

/**
 * Refuses, at parse time (a 400 before queueing), an expression of `click_x`, `click_all_x` or
 * `scroll_to_x` that is not XPath 1.0 as Chromium evaluates it, naming the option.
 */
export function checkXPathOptions(options: Parameters<typeof xpathExpressions>[0]): void {
  for (const [option, expression] of xpathExpressions(options)) {
    const why = xpathSyntaxError(expression);
    if (why === undefined) continue;
    throw new RenderError(
      "InvalidOptions",
      `Option ${option} "${shownXPath(expression)}" is not an XPath 1.0 expression: ${why}`,
      {
        details: { option },
      },
    );
  }
}
