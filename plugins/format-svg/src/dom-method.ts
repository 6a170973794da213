import { type PageSession, RenderError, raceSignal } from "@renderkit/core";
import type { CaptureArea } from "./capture-area.js";
import { BUNDLE_GLOBAL, domToSvgBundle } from "./dom-bundle.js";
import { SVG_NS } from "./svg-root.js";

/** The part of dom-to-svg the page script uses. */
interface DomToSvg {
  documentToSVG(document: Document, options: { captureArea: DOMRect; keepLinks: boolean }): XMLDocument;
  inlineResources(element: Element): Promise<void>;
}

interface Request {
  area: { x: number; y: number; width: number; height: number };
  transparent: boolean;
  /** Fetch images and fonts into data: URLs (needs page callbacks: not with `disable_js`). */
  inline: boolean;
}

/**
 * Runs in the page (serialised with `Function.prototype.toString`, so it must stay self-contained):
 * snapshots the area (document coordinates) with dom-to-svg, inlines images and fonts as data: URLs,
 * strips anything active, and moves the drawing into a group so that the root's `viewBox` is
 * `0 0 width height`.
 */
async function snapshotInPage(lib: DomToSvg, request: Request): Promise<{ svg: string; notInlined: number }> {
  const { area } = request;
  const rect = new DOMRect(area.x - window.scrollX, area.y - window.scrollY, area.width, area.height);
  const doc = lib.documentToSVG(document, { captureArea: rect, keepLinks: true });
  const root = doc.documentElement;
  // dom-to-svg 0.12 writes `xlink:href` with setAttribute (no namespace), so `image.href.baseVal`
  // is empty and inlineResources fetches nothing; a plain SVG 2 `href` gives it the address.
  const images = Array.from(root.getElementsByTagName("image"));
  for (const image of images) {
    const address = image.getAttribute("xlink:href");
    if (address && !image.hasAttribute("href")) image.setAttribute("href", address);
  }
  // inlineResources logs its own failures to the page console and goes on; count what is left.
  let notInlined = 0;
  try {
    if (request.inline) await lib.inlineResources(root);
  } catch {
    notInlined++;
  }
  for (const image of images) {
    if (!image.isConnected) continue; // an SVG image, replaced by its drawing
    const inlined = image.getAttribute("xlink:href")?.startsWith("data:");
    if (inlined) image.removeAttribute("href");
    else notInlined++;
  }
  // The page's markup must not become active content where the SVG is served: no scripts,
  // event handlers, animations (`<set attributeName="href" to="javascript:…">`) or script URLs.
  for (const element of Array.from(root.getElementsByTagName("*"))) {
    if (
      /^(script|foreignObject|iframe|embed|object|set|animate|animateMotion|animateTransform|discard)$/i.test(element.localName)
    ) {
      element.remove();
      continue;
    }
    for (const attribute of Array.from(element.attributes)) {
      const name = attribute.name.toLowerCase();
      const address = name === "href" || name.endsWith(":href") || name === "src";
      if (name.startsWith("on") || (address && !/^(https?:|mailto:|#|data:image\/|data:font\/)/i.test(attribute.value.trim()))) {
        element.removeAttribute(attribute.name);
      }
    }
  }
  const ns = root.namespaceURI ?? "";
  const group = doc.createElementNS(ns, "g");
  group.setAttribute("transform", `translate(${-rect.x} ${-rect.y})`);
  group.append(...Array.from(root.childNodes));
  if (!request.transparent) {
    const ground = doc.createElementNS(ns, "rect");
    ground.setAttribute("width", String(area.width));
    ground.setAttribute("height", String(area.height));
    ground.setAttribute("fill", "#fff");
    root.append(ground);
  }
  root.append(group);
  root.setAttribute("width", String(area.width));
  root.setAttribute("height", String(area.height));
  root.setAttribute("viewBox", `0 0 ${area.width} ${area.height}`);
  return { svg: new XMLSerializer().serializeToString(doc), notInlined };
}

export interface DomMethodOptions {
  transparent: boolean;
  /**
   * False when page scripts are off (`disable_js`): inlining waits on image and reader callbacks,
   * which never run then, so images stay links to their addresses.
   */
  inline: boolean;
  signal: AbortSignal;
  /** Told how many images could not be inlined (the SVG then links to them). */
  onNotInlined(count: number): void;
}

/**
 * dom-to-svg injected into the page: real `<text>` elements (selectable, searchable), small files,
 * but some CSS is lost (list bullets, text decorations, radial gradients, shadows, transforms).
 */
export async function svgFromDom(session: PageSession, area: CaptureArea, options: DomMethodOptions): Promise<string> {
  const bundle = await raceSignal(domToSvgBundle(), options.signal);
  const source = `async (request) => {\n${bundle}\nreturn (${snapshotInPage.toString()})(${BUNDLE_GLOBAL}, request);\n}`;
  const request: Request = {
    area: { x: area.x, y: area.y, width: area.width, height: area.height },
    transparent: options.transparent,
    inline: options.inline,
  };
  let result: { svg: string; notInlined: number };
  try {
    result = await raceSignal(session.evaluate(source, request), options.signal);
  } catch (error) {
    if (error instanceof RenderError) throw error;
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new RenderError("EngineResponseNotOkError", `dom-to-svg failed in the page: ${why}`, { cause: error });
  }
  if (result.notInlined > 0) options.onNotInlined(result.notInlined);
  if (!result.svg.includes(SVG_NS)) throw new RenderError("EngineResponseNotOkError", "dom-to-svg returned no SVG");
  return result.svg;
}
