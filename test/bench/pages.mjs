// The pages the throughput benchmark renders, served from loopback.

/** A short text page with a small table and one line added by script. */
export const SIMPLE = `<!doctype html><title>bench</title><style>body{font-family:sans-serif;margin:40px}</style>
<h1>renderkit bench</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p><table>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</table>
<script>document.body.insertAdjacentHTML('beforeend','<p id=js>built by script</p>')</script>`;

const CITIES = ["Lisbon", "Oslo", "Kyoto", "Quito", "Accra", "Perth"];
const row = (i) =>
  `<tr><td>${i + 1}</td><td>${CITIES[i % CITIES.length]}</td><td>${(i * 37.5) % 1000}</td><td>${i % 3 ? "open" : "closed"}</td><td>2025-${String((i % 12) + 1).padStart(2, "0")}-14</td></tr>`;

/** About 8 KB: styled header, a 60 x 5 table, and a script that adds a summary and a list. */
export const MEDIUM = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench medium</title>
<style>
body{font-family:Georgia,serif;margin:0;color:#222;background:#fafafa}
header{background:linear-gradient(90deg,#234,#468);color:#fff;padding:24px 40px}
main{display:grid;grid-template-columns:2fr 1fr;gap:24px;padding:24px 40px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
tr:nth-child(even) td{background:#eef}
th{background:#345;color:#fff;position:sticky;top:0}
aside{border-left:4px solid #468;padding-left:16px}
.badge{display:inline-block;border-radius:8px;padding:2px 8px;background:#fc6;margin:2px}
</style></head><body>
<header><h1>Quarterly report</h1><p>${"Figures by city and status, as of the last import. ".repeat(3)}</p></header>
<main><section><table><thead><tr><th>#</th><th>City</th><th>Amount</th><th>Status</th><th>Date</th></tr></thead>
<tbody>${Array.from({ length: 60 }, (_, i) => row(i)).join("\n")}</tbody></table></section>
<aside><h2>Notes</h2><p>${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(20)}</p><div id="tags"></div><ol id="summary"></ol></aside></main>
<script>
const cells = [...document.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent));
const total = cells.reduce((sum, c) => sum + Number(c[2]), 0);
const byCity = {};
for (const c of cells) byCity[c[1]] = (byCity[c[1]] ?? 0) + Number(c[2]);
document.getElementById("summary").innerHTML = Object.entries(byCity)
  .map(([city, sum]) => "<li>" + city + ": " + sum.toFixed(1) + " (" + ((100 * sum) / total).toFixed(1) + "%)</li>")
  .join("");
document.getElementById("tags").innerHTML = Object.keys(byCity).map((c) => '<span class="badge">' + c + "</span>").join("");
document.querySelector("header").insertAdjacentHTML("beforeend", "<p>Total: " + total.toFixed(1) + "</p>");
</script></body></html>`;

export const PAGES = { simple: SIMPLE, medium: MEDIUM };
