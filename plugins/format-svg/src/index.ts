export { type CaptureArea, captureArea } from "./capture-area.js";
export { BUNDLE_GLOBAL, domToSvgBundle } from "./dom-bundle.js";
export { type DomMethodOptions, svgFromDom } from "./dom-method.js";
export { SVG_FORMAT, SVG_METHODS, type SvgMethod, svgOptions } from "./format.js";
export { type PdfMethodOptions, svgFromPdf } from "./pdf-method.js";
export { type PdfToSvgOptions, pdfToSvg } from "./pdftocairo.js";
export { type SvgFormatOptions, svgFormat } from "./plugin.js";
export { SvgFormatter, type SvgSettings } from "./svg-formatter.js";
export { type PdfPlacement, pageSizePt, pdfPlacement, pdfSvgToArea } from "./svg-root.js";
