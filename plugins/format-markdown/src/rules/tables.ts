import type TurndownService from "turndown";

/**
 * GFM tables, used instead of turndown-plugin-gfm 1.0.2's: that one keeps every table without
 * a `<th>` first row as raw HTML, does not escape `|` in cells, breaks rows on multi-line cells
 * and ignores `colspan`/`rowspan`. A table without a heading row gets an empty one (GFM needs a
 * header). Layout tables (nested tables, `role="presentation"`, a single cell) are left to
 * turndown's block handling.
 *
 * Cells and rows are converted by turndown as usual and tagged with two Unicode noncharacters
 * (removed from cell text first, so a page cannot forge them); the table rule then lays them on
 * a grid built from the DOM spans.
 *
 * Self-contained (no reference outside its body): the page step ships it as source text.
 */
export function gfmTables(service: TurndownService): void {
  const CELL = "\uFDD0";
  const ROW = "\uFDD1";
  const info = new WeakMap<Node, { layout: boolean; rows: Element[] }>();
  const cellsOf = (row: Element) => Array.from(row.children).filter((c) => c.nodeName === "TD" || c.nodeName === "TH");

  const closestTable = (node: Node): Element | undefined => {
    for (let at = node.parentNode; at; at = at.parentNode) if (at.nodeName === "TABLE") return at as Element;
    return undefined;
  };

  const tableInfo = (table: Element) => {
    let found = info.get(table);
    if (!found) {
      // The table's own rows in document order (not those of nested tables).
      const rows: Element[] = [];
      for (const child of Array.from(table.children)) {
        if (child.nodeName === "TR") rows.push(child);
        else if (["THEAD", "TBODY", "TFOOT"].includes(child.nodeName)) {
          for (const row of Array.from(child.children)) if (row.nodeName === "TR") rows.push(row);
        }
      }
      const role = (table.getAttribute("role") ?? "").toLowerCase();
      const layout =
        role === "presentation" ||
        role === "none" ||
        table.getElementsByTagName("table").length > 0 ||
        (rows.length <= 1 && rows.every((r) => cellsOf(r).length <= 1));
      found = { layout, rows };
      info.set(table, found);
    }
    return found;
  };

  const inDataTable = (node: Node) => {
    const table = closestTable(node);
    return table !== undefined && !tableInfo(table).layout;
  };

  const span = (cell: Element, name: string) => {
    const value = Number.parseInt(cell.getAttribute(name) ?? "1", 10);
    return Number.isFinite(value) && value > 0 ? Math.min(value, 100) : 1;
  };

  const alignment = (cell: Element | undefined) => {
    const style = /text-align:\s*(\w+)/i.exec(cell?.getAttribute("style") ?? "")?.[1];
    const align = (cell?.getAttribute("align") ?? style ?? "").toLowerCase();
    const rules: Record<string, string> = { left: ":--", right: "--:", center: ":-:" };
    return rules[align] ?? "---";
  };

  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;

  service.addRule("rkTableCell", {
    filter: (node) => (node.nodeName === "TD" || node.nodeName === "TH") && inDataTable(node),
    replacement: (content) =>
      CELL +
      content
        .replace(/[\uFDD0\uFDD1]/g, "")
        .trim()
        .replace(/\s*\n+\s*/g, "<br>")
        .replace(/\|/g, "\\|"),
  });
  service.addRule("rkTableRow", {
    filter: (node) => node.nodeName === "TR" && inDataTable(node),
    // The row's index travels with it: turndown drops blank rows, which would shift the rest.
    replacement: (content, node) =>
      `${ROW}${tableInfo(closestTable(node)!).rows.indexOf(node)}${ROW}${content.replace(/\n/g, "")}`,
  });
  service.addRule("rkTableSection", {
    filter: (node) => ["THEAD", "TBODY", "TFOOT"].includes(node.nodeName) && inDataTable(node),
    replacement: (content) => content,
  });
  service.addRule("rkTableCaption", {
    filter: (node) => node.nodeName === "CAPTION" && inDataTable(node),
    replacement: () => "",
  });
  service.addRule("rkTable", {
    filter: (node) => node.nodeName === "TABLE" && !tableInfo(node).layout,
    replacement: (content, node) => {
      const { rows } = tableInfo(node);
      const texts: string[][] = [];
      const parts = content.split(ROW);
      for (let i = 1; i + 1 < parts.length; i += 2) texts[Number(parts[i])] = parts[i + 1]!.split(CELL).slice(1);
      const caption = Array.from(node.children)
        .find((c) => c.nodeName === "CAPTION")
        ?.textContent?.replace(/\s+/g, " ")
        .trim();
      const prefix = caption ? `${service.escape(caption)}\n\n` : "";
      // Lay the cells on a grid, honouring colspan and rowspan; missing cells are empty.
      const grid: string[][] = rows.map(() => []);
      const headerCells: (Element | undefined)[] = [];
      rows.forEach((row, r) => {
        let column = 0;
        cellsOf(row).forEach((cell, i) => {
          while (grid[r]![column] !== undefined) column++;
          const colspan = span(cell, "colspan");
          const rowspan = Math.min(span(cell, "rowspan"), rows.length - r);
          for (let dr = 0; dr < rowspan; dr++) {
            for (let dc = 0; dc < colspan; dc++) grid[r + dr]![column + dc] = dr === 0 && dc === 0 ? (texts[r]?.[i] ?? "") : "";
          }
          if (r === 0) for (let dc = 0; dc < colspan; dc++) headerCells[column + dc] = cell;
          column += colspan;
        });
      });
      const filled = grid.filter((cells, r) => cells.length > 0 || cellsOf(rows[r]!).length > 0);
      if (filled.length === 0) return `\n\n${prefix}`;
      const width = Math.max(...filled.map((cells) => cells.length));
      for (const cells of filled) for (let c = 0; c < width; c++) cells[c] ??= "";
      const first = rows[0]!;
      const headed =
        filled[0] === grid[0] &&
        (first.parentNode?.nodeName === "THEAD" ||
          (cellsOf(first).length > 0 && cellsOf(first).every((c) => c.nodeName === "TH")));
      const head = headed ? filled.shift()! : filled[0]!.map(() => "");
      const rule = head.map((_, c) => alignment(headed ? headerCells[c] : undefined));
      return `\n\n${prefix}${[line(head), line(rule), ...filled.map(line)].join("\n")}\n\n`;
    },
  });
}
