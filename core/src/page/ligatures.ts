import type { PageSession } from "../contracts/page-session.js";

/**
 * `disable_ligatures`: every element (and its generated content) of the main frame drawn without
 * ligatures, so `fi` stays two glyphs. Author CSS that turns them back on with a more specific
 * `!important` rule (or the request's own `css`, which comes later) wins.
 */
export const NO_LIGATURES_CSS = "*,*::before,*::after{font-variant-ligatures:none!important}";

/** Adds the `disable_ligatures` style sheet to the page. */
export function disableLigatures(session: PageSession): Promise<void> {
  return session.addStyle(NO_LIGATURES_CSS);
}
