/**
 * In-page heuristics of the generic consent fallback (main frame only). Both functions are
 * serialised with `Function.prototype.toString`, so each must stay self-contained.
 */

/** Attribute marking a banner the fallback found; its accept button gets `<attr>-accept="<n>"`. */
export const MARK = "data-renderkit-consent";

export interface MarkResult {
  /** Banners found (marked). */
  banners: number;
  /** Accept buttons marked (accept mode), numbered 0..n-1. */
  buttons: number;
}

/**
 * Finds visible fixed / sticky elements (or absolute ones on a high z-index) whose text reads
 * like a consent notice (consent wording, plus a consent action button or a "we use cookies"
 * phrase), outermost only; marks them and, in accept mode, the accept-like button inside each.
 */
export function markConsentBanners(arg: { mode: "hide" | "accept"; mark: string }): MarkResult {
  const STRONG =
    /cookie|consent|gdpr|ccpa|dsgvo|einwilligung|zustimmung|consentement|rgpd|consentimiento|consenso|consentimento|toestemming|samtycke|samtykke/;
  const WEAK = /privacy|datenschutz|vie privée|privacidad|riservatezza|privacidade/;
  const USE_PHRASE =
    /\b(we|this (web)?site|our (web)?site|wir|nous|utilizamos|usamos|utilizziamo|wij)\b[^.]{0,60}\b(use|uses|using|verwenden|nutzen|utilisons|utilise|cookies)\b|\bcookies?\b[^.]{0,40}\b(to|für|pour|para|per|om)\b/;
  const ACTION =
    /accept|agree|allow|got it|\bok\b|okay|understood|understand|decline|reject|deny|refuse|dismiss|close|continue|akzeptier|zustimm|einverstanden|annehmen|zulassen|ablehnen|verstanden|schließen|accepter|j'accepte|d'accord|refuser|fermer|aceptar|acepto|rechazar|cerrar|accett|rifiut|chiudi|aceitar|recusar|accepteer|akkoord|weiger|sluiten|godkänn|acceptera|neka|hyväksy/;
  const NOT_ACCEPT =
    /\bnot?\b|nicht|\bpas\b|without|ohne|sans|reject|decline|deny|refuse|necessary|essential|required|only|setting|preference|manage|custom|option|more|detail|ablehnen|notwendig|erforderlich|nur |einstellung|anpassen|refuser|nécessaire|paramètre|personnalis|rechazar|necesari|configur|rifiut|necessar|impostazion|weiger|noodzakelijk|instelling/;
  const ACCEPT_ALL =
    /(accept|allow|agree to) all|accept cookies|allow cookies|alle (akzeptieren|annehmen|zulassen)|tout accepter|accepter tout|aceptar todo|accetta tutt|alles accepteren|aceitar tud/;
  const ACCEPT =
    /accept|agree|allow|consent|got it|^ok\b|^okay|understood|i understand|continue|^yes|akzeptier|zustimm|einverstanden|annehmen|zulassen|verstanden|accepter|j'accepte|d'accord|acepto|aceptar|accett|aceitar|concordo|accepteer|akkoord|godkänn|acceptera|hyväksy|zgadzam|akceptuj|souhlas/;
  const CONTROLS = 'button, a, [role="button"], input[type="button"], input[type="submit"]';

  // The rendered text (innerText): what a reader sees, without hidden parts and scripts.
  const label = (el: Element): string => {
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is wanted here
    const text = (el as HTMLElement).innerText;
    const raw = text || (el as HTMLInputElement).value || el.getAttribute("aria-label") || el.getAttribute("title") || "";
    return raw.replace(/\s+/g, " ").trim().toLowerCase();
  };
  const visible = (el: Element): boolean => {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden" || Number(style.opacity) < 0.05) return false;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width >= 1 && r.height >= 1 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  };
  const overlay = (style: CSSStyleDeclaration): boolean =>
    style.position === "fixed" ||
    style.position === "sticky" ||
    (style.position === "absolute" && (Number.parseInt(style.zIndex, 10) || 0) >= 1000);

  // Elements of the document and of open shadow roots, in document order.
  const all: Element[] = [];
  const collect = (root: Document | ShadowRoot): void => {
    for (const el of Array.from(root.querySelectorAll("*"))) {
      all.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);

  const banners: Element[] = [];
  let buttons = 0;
  for (const el of all) {
    if (el === document.documentElement || el === document.body) continue;
    if (/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|IFRAME|HEAD|META|LINK)$/.test(el.tagName)) continue;
    if (banners.some((b) => b.contains(el))) continue;
    if (!overlay(getComputedStyle(el)) || !visible(el)) continue;
    const text = label(el);
    if (text.length < 10 || text.length > 3000) continue;
    const strong = STRONG.test(text);
    if (!strong && !WEAK.test(text)) continue;
    const controls = Array.from(el.querySelectorAll(CONTROLS)).filter((c) => visible(c));
    const action = controls.map(label).some((t) => t.length > 0 && t.length <= 50 && ACTION.test(t));
    const phrase = USE_PHRASE.test(text);
    // Consent wording and a consent action (or the "we use cookies" phrase); privacy wording alone needs both.
    if (strong ? !action && !phrase : !action || !phrase) continue;
    banners.push(el);
    el.setAttribute(arg.mark, "banner");
    if (arg.mode !== "accept") continue;
    let best: Element | undefined;
    let bestScore = 0;
    for (const control of controls) {
      const t = label(control);
      if (t.length === 0 || t.length > 50 || NOT_ACCEPT.test(t)) continue;
      const score = ACCEPT_ALL.test(t) ? 2 : ACCEPT.test(t) ? 1 : 0;
      if (score > bestScore) {
        best = control;
        bestScore = score;
      }
    }
    if (best) best.setAttribute(`${arg.mark}-accept`, String(buttons++));
  }
  return { banners: banners.length, buttons };
}

/**
 * Hides the marked banners that are still visible, restores scrolling the page locked
 * (`overflow: hidden` on html / body) and hides empty full-screen backdrops when it hid any;
 * removes the marks. Returns how many banners it hid.
 */
export function hideMarkedBanners(arg: { mark: string }): number {
  const important = (el: Element, property: string, value: string): void =>
    (el as HTMLElement).style.setProperty(property, value, "important");
  const shown = (el: Element): boolean => {
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return (
      style.display !== "none" && style.visibility !== "hidden" && Number(style.opacity) >= 0.05 && r.width > 0 && r.height > 0
    );
  };
  const marked: Element[] = [];
  const collect = (root: Document | ShadowRoot): void => {
    for (const el of Array.from(root.querySelectorAll("*"))) {
      if (el.hasAttribute(arg.mark)) marked.push(el);
      if (el.hasAttribute(`${arg.mark}-accept`)) el.removeAttribute(`${arg.mark}-accept`);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);
  let hidden = 0;
  for (const el of marked) {
    el.removeAttribute(arg.mark);
    if (!el.isConnected || !shown(el)) continue;
    important(el, "display", "none");
    hidden++;
  }
  if (hidden === 0) return 0;
  for (const el of [document.documentElement, document.body]) {
    if (!el) continue;
    const style = getComputedStyle(el);
    if (style.overflowY === "hidden" || style.overflow === "hidden") important(el, "overflow", "visible");
  }
  // Backdrops: fixed, covering most of the viewport, on top, without any content.
  for (const el of Array.from(document.querySelectorAll("body *"))) {
    const style = getComputedStyle(el);
    if (style.position !== "fixed" || (Number.parseInt(style.zIndex, 10) || 0) < 10 || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width * r.height < 0.8 * innerWidth * innerHeight) continue;
    if ((el.textContent ?? "").trim() !== "" || el.querySelector("img, video, canvas, iframe, svg, picture")) continue;
    important(el, "display", "none");
  }
  return hidden;
}
