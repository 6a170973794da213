import { parseClip, parsePadding } from "../page/shape-values.js";
import type { OptionRule } from "./combinations.js";
import { bool, num, oneOf, str } from "./spec.js";

/** The formats image shaping applies to (the screenshot formats of `@renderkit/format-image`). */
export const SHAPED_FORMATS: readonly string[] = ["png", "jpg", "webp", "avif"];

/** Values of `img_position`: sharp's positions, gravities and strategies. */
export const IMG_POSITIONS = [
  "top",
  "right top",
  "right",
  "right bottom",
  "bottom",
  "left bottom",
  "left",
  "left top",
  "centre",
  "north",
  "northeast",
  "east",
  "southeast",
  "south",
  "southwest",
  "west",
  "northwest",
  "entropy",
  "attention",
] as const;

/** Image shaping options (issue 11): clip, widths, backgrounds, thumbnail fitting, device pixel ratio, full-page mode, header strip. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const IMAGE_OPTIONS = {
  clip: str(
    "Capture exactly this rectangle of the document: `x,y,width,height` in CSS pixels from the top-left of the page (not the viewport), also below the fold. Image formats only; not with `selector` or `full_width`. A rectangle reaching beyond the page is refused (400).",
    { maxLength: 128 },
  ),
  fullWidth: bool(
    "With `full_page`: capture the document's whole scroll width (horizontal overflow included) instead of the viewport width. Image formats only; needs `full_page`, not with `selector` or `clip`.",
    { default: false },
  ),
  maxWidth: num(
    "Cap the width of the capture in CSS pixels: a wider viewport, page, element or clip is cut on the right (the output is `max_width` × device scale factor wide). Image formats only.",
    { min: 1, max: 16_384, integer: true, aliases: ["crop_width"] },
  ),
  bgColor: str(
    "Background colour (any CSS colour: `#rrggbb`, `rgb()`, `hsl()`, names) where the page sets none, also behind `transparent`: transparent areas become this colour. A translucent colour keeps that alpha on png, webp and avif. Image formats only (pdf prints on paper: use `css`; video and svg are refused).",
    { maxLength: 64 },
  ),
  imgFit: oneOf(
    "How the capture fits the `thumb_width` × `thumb_height` box (both needed): `cover` (crop to the box, default), `contain` (letterbox with `img_bg`), `fill` (stretch), `inside` (fit within, output may be smaller), `outside` (cover without cropping, output may be larger).",
    ["cover", "contain", "fill", "inside", "outside"],
  ),
  imgPosition: oneOf(
    "Which part is kept (`cover`) or where the image sits (`contain`) in the thumb box: `top` (default for cover), `centre` (default for contain), `right top`, `right`, `right bottom`, `bottom`, `left bottom`, `left`, `left top`, compass points `north`...`northwest`, or, for `cover` only, `entropy` / `attention` (the busiest / most salient region). Needs `thumb_width` and `thumb_height`.",
    IMG_POSITIONS,
    {
      synonyms: {
        center: "centre",
        "top right": "right top",
        "top left": "left top",
        "bottom right": "right bottom",
        "bottom left": "left bottom",
      },
    },
  ),
  imgBg: str(
    "Colour of `img_pad` padding and of `img_fit: contain` letterboxing (any CSS colour; default black; translucent colours keep their alpha on png, webp and avif). Needs `img_pad` or `img_fit: contain`.",
    { maxLength: 64 },
  ),
  imgPad: str(
    "Padding added around the output image in output pixels, CSS order: one value for all sides, or `top,right,bottom,left` (two or three values as in CSS); each 0..2000. The output grows by the padding (a thumb keeps its size inside it). Coloured by `img_bg`. Image formats only.",
    { maxLength: 64 },
  ),
  forceDpr: bool(
    "Read `thumb_width`, `thumb_height` and `img_pad` as CSS pixels and multiply them by the device scale factor (`dpr`, `retina`), so a thumbnail keeps the capture's pixel density: `thumb_width: 400` with `retina` gives an 800 px wide image instead of 400 px. Needs `thumb_width` or `thumb_height`, and a device scale factor above 1.",
    { default: false },
  ),
  fullPageMode: oneOf(
    "How tall captures (`full_page`, `selector`, `clip`) are taken: `stitch` (default) in sections of 8,192 device px stitched by sharp, up to `max_height`; `native` in one Chromium capture beyond the viewport, faster, but cut at 16,384 device px (`truncated: true`). Image formats only.",
    ["stitch", "native"],
    { default: "stitch" },
  ),
  showTimestamp: bool(
    "Add a header strip above the screenshot with the capture time (`YYYY-MM-DD HH:MM:SS UTC`); the image grows by the strip (32 CSS px × device scale factor), the page is not changed. Image formats only.",
    { default: false },
  ),
  showUrl: bool(
    "Add a header strip above the screenshot with the page's address (after redirects); with `show_timestamp` both share one strip. Image formats only; needs `url` (an `html` render has no address).",
    { default: false },
  ),
} as const;

type Options = Parameters<OptionRule["when"]>[0];

const hasThumb = (o: Options) => o.thumbWidth !== undefined || o.thumbHeight !== undefined;
const hasBox = (o: Options) => o.thumbWidth !== undefined && o.thumbHeight !== undefined;
const notImage = (format: string) => !SHAPED_FORMATS.includes(format);
const imageOnly = (option: string, test: (o: Options) => boolean, why: string): OptionRule => ({
  option,
  when: (o, format) => test(o) && notImage(format),
  why,
});

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const IMAGE_RULES: readonly OptionRule[] = [
  {
    option: "clip",
    when: (o) => typeof o.clip === "string" && parseClip(o.clip) === undefined,
    why: "must be x,y,width,height in CSS pixels: x and y 0..60000, width 1..16384, height 1..60000",
  },
  {
    option: "clip",
    when: (o) => o.clip !== undefined && o.selector !== undefined,
    why: "cannot be used with selector: both choose the area",
  },
  imageOnly("clip", (o) => o.clip !== undefined, "applies to image formats only (png, jpg, webp, avif)"),
  {
    option: "fullWidth",
    when: (o) => o.fullWidth && (!o.fullPage || o.selector !== undefined || o.clip !== undefined),
    why: "needs full_page, without selector or clip: it widens a full-page capture to the document's scroll width",
  },
  imageOnly("fullWidth", (o) => o.fullWidth, "applies to image formats only (png, jpg, webp, avif)"),
  imageOnly("maxWidth", (o) => o.maxWidth !== undefined, "applies to image formats only (png, jpg, webp, avif)"),
  ...["imgFit", "imgPosition", "imgBg", "forceDpr"].map((option) =>
    imageOnly(
      option,
      (o) => o[option] !== undefined && o[option] !== false,
      "applies to image formats only (png, jpg, webp, avif)",
    ),
  ),
  imageOnly(
    "bgColor",
    (o) => o.bgColor !== undefined,
    "applies to image formats only: a PDF prints on paper (set a background with css), video frames and svg have no capture background",
  ),
  {
    option: "imgFit",
    when: (o) => o.imgFit !== undefined && !hasBox(o),
    why: "needs both thumb_width and thumb_height: with one side the aspect ratio decides the other",
  },
  {
    option: "imgPosition",
    when: (o) => o.imgPosition !== undefined && !hasBox(o),
    why: "needs both thumb_width and thumb_height",
  },
  {
    option: "imgPosition",
    when: (o) => o.imgPosition !== undefined && o.imgFit !== undefined && o.imgFit !== "cover" && o.imgFit !== "contain",
    why: "applies only with img_fit cover or contain: fill, inside and outside keep the whole image",
  },
  {
    option: "imgPosition",
    when: (o) => (o.imgPosition === "entropy" || o.imgPosition === "attention") && o.imgFit === "contain",
    why: "entropy and attention choose a crop: they need img_fit cover",
  },
  {
    option: "imgPad",
    when: (o) => typeof o.imgPad === "string" && parsePadding(o.imgPad) === undefined,
    why: "must be one to four whole numbers of pixels (top,right,bottom,left), each 0..2000",
  },
  imageOnly("imgPad", (o) => o.imgPad !== undefined, "applies to image formats only (png, jpg, webp, avif)"),
  {
    option: "imgBg",
    when: (o) => o.imgBg !== undefined && o.imgPad === undefined && o.imgFit !== "contain",
    why: "colours img_pad padding and img_fit contain letterboxing: give one of them",
  },
  {
    option: "forceDpr",
    when: (o) => o.forceDpr && !hasThumb(o),
    why: "needs thumb_width or thumb_height: it scales them by the device scale factor",
  },
  {
    option: "forceDpr",
    when: (o) => o.forceDpr && o.deviceScaleFactor === 1,
    why: "has no effect at device scale factor 1: set dpr or retina",
  },
  imageOnly("fullPageMode", (o) => o.fullPageMode === "native", "applies to image formats only (png, jpg, webp, avif)"),
  {
    option: "fullPageMode",
    when: (o) => o.fullPageMode === "native" && !o.fullPage && o.selector === undefined && o.clip === undefined,
    why: "native needs full_page, selector or clip: a viewport capture is always one capture",
  },
  imageOnly(
    "showTimestamp",
    (o) => o.showTimestamp,
    "is drawn above screenshots only (png, jpg, webp, avif); for pdf use pdf_header with its date class",
  ),
  imageOnly(
    "showUrl",
    (o) => o.showUrl,
    "is drawn above screenshots only (png, jpg, webp, avif); for pdf use pdf_header with its url class",
  ),
  { option: "showUrl", when: (o) => o.showUrl && o.url === undefined, why: "needs url: an html render has no address" },
];
