import { bool, type FormatOnly, type FormatOptions, formatOnly, num, type OptionRule, oneOf, str } from "@renderkit/core";
import { parseClip, parsePadding } from "@renderkit/core/page";

/** The formats of this plugin, which the image options apply to. */
export const SHAPED_FORMATS: readonly string[] = ["png", "jpg", "webp", "avif"];

/** Why an image option is refused with another format. */
/** `transparent`: the svg format declares it too, and the formats of both are merged. */
const TRANSPARENT: FormatOnly = {
  formats: ["png", "webp", "avif"],
  why: "needs a format with transparency ({formats}); jpg, pdf and the other formats have none",
};
/** `thumb_width`, `thumb_height`. */
const RESIZED: FormatOnly = { formats: SHAPED_FORMATS, why: "resizes images only (png, jpg, webp, avif)" };
const IMAGE_ONLY = "applies to image formats only (png, jpg, webp, avif)";

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

/**
 * The options of the image formats (names and defaults of the option catalogue clients send: docs/compatibility.md): quality,
 * transparency, thumbnails, and the shaping of issue 11 (clip, widths, backgrounds, thumbnail
 * fitting, device pixel ratio, full-page mode, header strip, section height). The other formats
 * refuse them (`quality`, which clients send on every request, is reported as ignored instead).
 */
const IMAGE_TABLE = {
  quality: num("JPEG, WebP and AVIF quality.", {
    min: 1,
    max: 100,
    integer: true,
    default: 80,
    only: {
      formats: ["jpg", "webp", "avif"],
      why: "sets the quality of lossy images: jpg, webp and avif",
      otherwise: "ignore",
    },
  }),
  optimizeForSpeed: bool(
    "png: encode for speed, not size (Chromium's fast PNG encoding): the same pixels, about half the encoding time (10–27 % more renders per second of a simple 1280×1024 page in the bench), a file 1.3–1.9× as large. Default false: the smaller file. Other formats encode their own way (webp and avif are always captured this way before sharp converts them).",
    { default: false, only: { formats: ["png"], why: "sets how png is encoded; the other formats encode their own way" } },
  ),
  transparent: bool("Transparent background where the page sets none, in the formats with transparency (png, webp, avif, svg).", {
    default: false,
    only: TRANSPARENT,
  }),
  thumbWidth: num(
    "Output width in pixels: alone, scales keeping the aspect ratio (never enlarging); with `thumb_height`, crops to exactly that box, keeping the top.",
    { min: 1, max: 16_384, integer: true, only: RESIZED },
  ),
  thumbHeight: num(
    "Output height in pixels: alone, scales keeping the aspect ratio (never enlarging); with `thumb_width`, crops to exactly that box, keeping the top.",
    { min: 1, max: 16_384, integer: true, only: RESIZED },
  ),

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
    {
      maxLength: 64,
      only: {
        formats: SHAPED_FORMATS,
        why: "applies to image formats only: a PDF prints on paper (set a background with css), video frames and svg have no capture background",
      },
    },
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
    {
      default: false,
      only: {
        formats: SHAPED_FORMATS,
        why: "is drawn above screenshots only (png, jpg, webp, avif); for pdf use pdf_header with its date class",
      },
    },
  ),
  showUrl: bool(
    "Add a header strip above the screenshot with the page's address (after redirects); with `show_timestamp` both share one strip. Image formats only; needs `url` (an `html` render has no address).",
    {
      default: false,
      only: {
        formats: SHAPED_FORMATS,
        why: "is drawn above screenshots only (png, jpg, webp, avif); for pdf use pdf_header with its url class",
      },
    },
  ),
  maxSectionHeight: num(
    "Image formats, with `full_page`, `selector` or `clip`: the height of one screenshot, in device pixels, when a tall capture is taken in sections and stitched (1,000–10,000). The output is the same; only the number of screenshots changes (smaller sections: less browser memory per screenshot, more screenshots). Default: 8,192 device pixels (measured fastest), not the catalogue's 4,096. Not with `full_page_mode: native` (one screenshot).",
    {
      min: 1_000,
      max: 10_000,
      integer: true,
      only: {
        formats: SHAPED_FORMATS,
        why: "applies to image formats only (png, jpg, webp, avif): the others are not captured in sections",
      },
    },
  ),
} as const;

export const IMAGE_OPTIONS = formatOnly(IMAGE_TABLE, { formats: SHAPED_FORMATS, why: IMAGE_ONLY });

type Options = Parameters<OptionRule["when"]>[0];

const hasThumb = (o: Options) => o.thumbWidth !== undefined || o.thumbHeight !== undefined;
const hasBox = (o: Options) => o.thumbWidth !== undefined && o.thumbHeight !== undefined;

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
  {
    option: "fullWidth",
    when: (o) => o.fullWidth === true && (!o.fullPage || o.selector !== undefined || o.clip !== undefined),
    why: "needs full_page, without selector or clip: it widens a full-page capture to the document's scroll width",
  },
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
  {
    option: "imgBg",
    when: (o) => o.imgBg !== undefined && o.imgPad === undefined && o.imgFit !== "contain",
    why: "colours img_pad padding and img_fit contain letterboxing: give one of them",
  },
  {
    option: "forceDpr",
    when: (o) => o.forceDpr === true && !hasThumb(o),
    why: "needs thumb_width or thumb_height: it scales them by the device scale factor",
  },
  {
    option: "forceDpr",
    when: (o) => o.forceDpr === true && o.deviceScaleFactor === 1,
    why: "has no effect at device scale factor 1: set dpr or retina",
  },
  {
    option: "fullPageMode",
    when: (o) => o.fullPageMode === "native" && !o.fullPage && o.selector === undefined && o.clip === undefined,
    why: "native needs full_page, selector or clip: a viewport capture is always one capture",
  },
  { option: "showUrl", when: (o) => o.showUrl === true && o.url === undefined, why: "needs url: an html render has no address" },
  {
    option: "maxSectionHeight",
    when: (o) => o.maxSectionHeight !== undefined && o.fullPageMode === "native",
    why: "cannot be used with full_page_mode native, which takes one screenshot",
  },
  {
    option: "maxSectionHeight",
    when: (o) => o.maxSectionHeight !== undefined && !o.fullPage && !o.selector && o.clip === undefined,
    why: "needs full_page, selector or clip: a viewport capture is one screenshot",
  },
];

/** The options the image formats read: the core's and their own. */
export type ImageOptions = FormatOptions<typeof IMAGE_OPTIONS>;
