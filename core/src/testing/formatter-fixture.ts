/** A marker the fixture page shows; text formats must carry it. */
export const FIXTURE_TEXT = "Renderkit contract fixture";
/** The fixture page's background, as `[r, g, b]`: what a screenshot shows away from the text. */
export const FIXTURE_BACKGROUND = [40, 120, 200] as const;

/** The page every sample render shows: a coloured background and a line of text, no subresources. */
export const FIXTURE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${FIXTURE_TEXT}</title>
<style>html,body{margin:0;background:rgb(${FIXTURE_BACKGROUND.join(",")});color:#000;font:16px sans-serif}</style></head>
<body><h1>${FIXTURE_TEXT}</h1><p>A small page every format can render.</p></body></html>`;

/**
 * A `js` option that returns at once and then keeps the page's main thread busy for a while: the
 * formatter, which runs next, waits on the page (a capture, an evaluate, a print) when the
 * render's `global_timeout` aborts it.
 */
export const BUSY_PAGE_JS = "setTimeout(() => { const end = Date.now() + 4000; while (Date.now() < end); }, 0);";
