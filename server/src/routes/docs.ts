import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { H3, H3Event } from "h3";
import { headOf } from "../http/respond.js";

/** The page loads only from this server: the bundle, the document, and the API it documents. */
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>renderkit API reference</title>
</head>
<body>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>
Scalar.createApiReference("#app", {
  url: "/v1/openapi.json",
  withDefaultFonts: false,
  hideClientButton: true,
  defaultOpenAllTags: true,
  agent: { disabled: true },
  showDeveloperTools: "never",
  telemetry: false,
});
</script>
</body>
</html>
`;

/** Scalar's standalone bundle, read from the installed package once, on the first request. */
let bundle: Buffer | undefined;
function scalarBundle(): Buffer {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js"));
  return bundle;
}

/** The API reference page at `/docs`, rendering /v1/openapi.json with Scalar served from the package (no CDN). */
export function docsRoutes(app: H3): void {
  const page = (_event: H3Event) =>
    new Response(PAGE, {
      headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP, "cache-control": "no-cache" },
    });
  const script = (_event: H3Event) =>
    new Response(new Uint8Array(scalarBundle()), {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
    });
  app.get("/docs", page);
  app.head("/docs", headOf(page));
  app.get("/docs/", page);
  app.get("/docs/scalar.js", script);
  app.head("/docs/scalar.js", headOf(script));
}
