/** Worker thread of `convertOffThread`: converts one page's HTML and posts the markdown back. */
import { parentPort, workerData } from "node:worker_threads";
import { htmlToMarkdown } from "./html-to-markdown.js";

const { html, baseUrl } = workerData as { html: string; baseUrl: string };
parentPort?.postMessage(htmlToMarkdown(html, baseUrl));
