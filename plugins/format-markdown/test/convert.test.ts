import { readFileSync } from "node:fs";
import { createTurndown, htmlToMarkdown, tidyMarkdown, turndownSetupSource } from "@renderkit/format-markdown";
import TurndownService from "turndown";
import { describe, expect, it } from "vitest";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("htmlToMarkdown", () => {
  it("converts a whole document without leaking head, title, scripts, styles or templates", () => {
    const md = htmlToMarkdown(fixture("features.html"), "http://site.test/notes/");
    for (const leak of ["TITLE-SHOULD", "STYLE-SHOULD", "INLINE_SCRIPT", "NOSCRIPT-SHOULD", "TEMPLATE-SHOULD"]) {
      expect(md).not.toContain(leak);
    }
    expect(md.startsWith("# Release notes\n\nThis release ~~drops~~ ~~removes~~ nothing")).toBe(true);
    expect(md).toContain("[the guide](http://site.test/notes/docs/guide.html)");
    expect(md).toContain("[the changelog](http://site.test/changelog#v2)");
    expect(md).toContain("![Project logo](http://site.test/notes/img/logo.png)");
  });

  it("writes GFM tables: a header separator, alignment, escaped pipes, <br> for multi-line cells", () => {
    const md = htmlToMarkdown(
      `<table><thead><tr><th>Name</th><th align="right">Qty</th></tr></thead>
       <tbody><tr><td>a|b</td><td>1</td></tr><tr><td><p>two</p><p>lines</p></td><td>2</td></tr></tbody></table>`,
    );
    expect(md).toBe("| Name | Qty |\n| --- | --: |\n| a\\|b | 1 |\n| two<br>lines | 2 |\n");
  });

  it("gives header-less tables an empty header and lays colspan and rowspan on a grid", () => {
    const md = htmlToMarkdown(
      `<table><caption>Sizes</caption><tr><td rowspan="2">k</td><td>v1</td><td>w1</td></tr><tr><td colspan="2">v2</td></tr><tr><td>x</td></tr></table>`,
    );
    expect(md).toBe("Sizes\n\n|  |  |  |\n| --- | --- | --- |\n| k | v1 | w1 |\n|  | v2 |  |\n| x |  |  |\n");
  });

  it("treats layout tables as blocks", () => {
    const md = htmlToMarkdown(`<table role="presentation"><tr><td><p>one</p></td><td><p>two</p></td></tr></table>`);
    expect(md).toBe("one\n\ntwo\n");
  });

  it("nests lists with the marker's indentation", () => {
    const md = htmlToMarkdown(
      "<ul><li>a<ul><li>b<ol><li>c</li><li>d</li></ol></li></ul></li><li>e</li></ul><ol start='9'><li>nine</li><li>ten</li></ol>",
    );
    expect(md).toBe("- a\n  - b\n    1. c\n    2. d\n- e\n\n9. nine\n10. ten\n");
  });

  it("fences code blocks with their language from code, pre, wrapper or data attributes", () => {
    expect(htmlToMarkdown('<pre><code class="hljs language-rust">fn main() {}\n</code></pre>')).toBe(
      "```rust\nfn main() {}\n```\n",
    );
    expect(htmlToMarkdown('<pre class="lang-sh">\n  <code>ls</code>\n</pre>')).toBe("```sh\nls\n```\n");
    expect(htmlToMarkdown('<div class="highlight highlight-source-python"><pre>print(1)</pre></div>')).toBe(
      "```python\nprint(1)\n```\n",
    );
    expect(htmlToMarkdown('<pre data-lang="SQL"><code>select 1</code></pre>')).toBe("```sql\nselect 1\n```\n");
    expect(htmlToMarkdown("<pre><code>a\n```\nb</code></pre>")).toBe("````\na\n```\nb\n````\n");
  });

  it("keeps blank lines inside code blocks and collapses them elsewhere", () => {
    expect(htmlToMarkdown("<p>a</p><div><br><br></div><p>b</p><pre><code>x\n\n\n\ny</code></pre>")).toBe(
      "a\n\nb\n\n```\nx\n\n\n\ny\n```\n",
    );
    expect(tidyMarkdown("\n\n# t\n\n\n\ntext  \nmore   \n   \n\n")).toBe("# t\n\ntext  \nmore\n");
  });

  it("resolves against <base href>, keeps relative links without a base, drops script links and inline images", () => {
    expect(htmlToMarkdown('<base href="/v2/"><a href="x">x</a>', "https://h.test/a/b")).toBe("[x](https://h.test/v2/x)\n");
    expect(htmlToMarkdown('<a href="x.html">x</a> <img src="i.png" alt="i">')).toBe("[x](x.html) ![i](i.png)\n");
    expect(
      htmlToMarkdown(
        '<a href="javascript:go()">go</a> <a href="/e"> </a><img src="data:image/png;base64,AA" alt="p">',
        "https://h.test/",
      ),
    ).toBe("go\n");
    expect(htmlToMarkdown('<a href="/card"><h3>Title</h3><p>Teaser</p></a>', "https://h.test/")).toBe(
      "[Title Teaser](https://h.test/card)\n",
    );
  });

  it("writes task lists, drops controls but keeps accordion titles", () => {
    expect(htmlToMarkdown('<ul><li><input type="checkbox" checked> done</li><li><input type="checkbox"> todo</li></ul>')).toBe(
      "- [x] done\n- [ ] todo\n",
    );
    expect(htmlToMarkdown("<button>Menu</button><h2><button>Shipping</button></h2><p>text</p>")).toBe("## Shipping\n\ntext\n");
  });

  it("ships the same rules to the page: the setup rebuilt from its source text converts identically", () => {
    // The page step evaluates turndownSetupSource(); a rule that refers to anything outside its own
    // body would throw there. Rebuilding it here with nothing in scope catches that without a browser.
    const rebuilt = new Function(`return ${turndownSetupSource()}`)() as (
      t: typeof TurndownService,
      base?: string,
    ) => TurndownService;
    for (const name of ["features.html", "article.html", "landing.html"]) {
      const html = fixture(name);
      const expected = tidyMarkdown(createTurndown("http://site.test/").turndown(html));
      expect(tidyMarkdown(rebuilt(TurndownService, "http://site.test/").turndown(html))).toBe(expected);
    }
  });
});
