import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A block of colour placed absolutely on a page, in CSS pixels. */
export interface Block {
  x: number;
  y: number;
  width: number;
  height: number;
  colour: readonly [number, number, number];
}

export const RED = [255, 0, 0] as const;
export const BLUE = [0, 0, 255] as const;
export const GREEN = [0, 160, 0] as const;
export const MAGENTA = [255, 0, 255] as const;
export const YELLOW = [255, 255, 0] as const;
export const WHITE = [255, 255, 255] as const;
export const BLACK = [0, 0, 0] as const;

/** Blocks of `/shapes`: the page sets no background, is 1300 px wide (overflow) and 2000 px tall. */
export const SHAPES = {
  red: { x: 0, y: 0, width: 100, height: 100, colour: RED },
  blue: { x: 200, y: 300, width: 100, height: 50, colour: BLUE },
  green: { x: 50, y: 1500, width: 200, height: 100, colour: GREEN },
  overflow: { x: 1000, y: 10, width: 300, height: 100, colour: MAGENTA },
  bottom: { x: 0, y: 1990, width: 10, height: 10, colour: BLUE },
} as const satisfies Record<string, Block>;

/** Bands of `/tall`: a 20,000 px page with a band near its top, past 16,384 px and at its bottom. */
export const TALL = {
  top: { x: 0, y: 0, width: 400, height: 100, colour: GREEN },
  past: { x: 0, y: 17_000, width: 400, height: 100, colour: MAGENTA },
  end: { x: 0, y: 19_900, width: 400, height: 100, colour: BLUE },
} as const satisfies Record<string, Block>;

function blocks(list: readonly Block[]): string {
  return list
    .map(
      (b) =>
        `<div style="position:absolute;left:${b.x}px;top:${b.y}px;width:${b.width}px;height:${b.height}px;background:rgb(${b.colour.join(",")})"></div>`,
    )
    .join("");
}

function page(body: string, style = ""): string {
  return `<!doctype html><html><head><title>shaping</title><style>html,body{margin:0;padding:0}${style}</style></head><body>${body}</body></html>`;
}

/** The pages this suite renders. */
const PAGES: Readonly<Record<string, string>> = {
  "/shapes": page(blocks(Object.values(SHAPES))),
  /** Left half red, right half blue, whatever the viewport. */
  "/halves": page(
    `<div style="position:fixed;left:0;top:0;width:50vw;height:100vh;background:rgb(255,0,0)"></div><div style="position:fixed;right:0;top:0;width:50vw;height:100vh;background:rgb(0,0,255)"></div>`,
  ),
  /** Sets its own yellow background. */
  "/yellow": page(blocks([SHAPES.red]), "html{background:rgb(255,255,0)}"),
  "/tall": page(`${blocks(Object.values(TALL))}<div style="height:20000px"></div>`),
};

/** A loopback HTTP site serving `PAGES`. */
export interface Site {
  url(path: string): string;
  readonly host: string;
  close(): Promise<void>;
}

export async function startSite(): Promise<Site> {
  const server = createServer((req, res) => {
    const body = PAGES[(req.url ?? "/").split("?")[0] ?? "/"];
    if (body === undefined) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Centre of a block. */
export function centre(b: Block): { x: number; y: number } {
  return { x: Math.floor(b.x + b.width / 2), y: Math.floor(b.y + b.height / 2) };
}
