// `node --import <this file>`: appends every module the process resolves to the file named by
// MODULE_TRACE (one address a line), so a test can tell which packages a process loaded.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
