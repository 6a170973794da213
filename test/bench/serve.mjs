import { createServer } from "node:http";

/** Serves `html` on a loopback port for a benchmark: `{ url, server }`; close the server when done. */
export async function serveHtml(html) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(html);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}
