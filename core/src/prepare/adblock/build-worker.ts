import { parentPort, workerData } from "node:worker_threads";
import { FiltersEngine } from "@ghostery/adblocker";
import { ENGINE_CONFIG } from "./engine-config.js";

// Parses the lists off the main thread (EasyList and EasyPrivacy take about a second of CPU)
// and hands back the serialised engine, which the main thread deserialises in milliseconds.
const { text } = workerData as { text: string };
const bytes = FiltersEngine.parse(text, ENGINE_CONFIG).serialize();
parentPort?.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
