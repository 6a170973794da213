/** A rectangle in CSS pixels, relative to the document. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ScreenshotSettings {
  type: "png" | "jpeg";
  /** JPEG quality 1..100. */
  quality?: number;
  fullPage: boolean;
  clip?: Box;
  /** Transparent background where the page sets none (png only). */
  omitBackground: boolean;
  /**
   * Encode for speed, not size (Chromium's `optimizeForSpeed`): the same pixels in about half the
   * encoding time, a larger file. A hint: an engine or capture path that cannot ignores it.
   */
  optimizeForSpeed?: boolean;
}

export interface PdfSettings {
  /** Paper size in CSS units (`210mm`) or inches as Chromium accepts them. */
  width: string;
  height: string;
  landscape: boolean;
  margin: { top: string; right: string; bottom: string; left: string };
  printBackground: boolean;
  scale: number;
  displayHeaderFooter: boolean;
  headerTemplate: string;
  footerTemplate: string;
  pageRanges?: string;
  preferCSSPageSize: boolean;
  /** A tagged (accessible) PDF with a structure tree (`/StructTreeRoot`). Absent: false. */
  tagged?: boolean;
  /** An outline (bookmarks) from the headings; Chromium needs `tagged` for it. Absent: false. */
  outline?: boolean;
}

/** How to stream frames of the page (Chromium's screencast). */
export interface ScreencastSettings {
  format: "jpeg" | "png";
  /** JPEG quality 1..100. */
  quality: number;
  /** Frames are scaled down to fit these (device pixels). */
  maxWidth: number;
  maxHeight: number;
}

/** One frame of a screencast. */
export interface ScreencastFrame {
  /** Encoded image bytes (`format` of the settings). */
  data: Buffer;
  /** When the browser painted it, in seconds on the page's clock. */
  timestamp: number;
}

/** A running screencast; `stop()` resolves once no more frames will be delivered. */
export interface Screencast {
  stop(): Promise<void>;
}
