import type { InjectionToken } from "tsyringe";
import type { Engine } from "./contracts/engine.js";
import type { Formatter } from "./contracts/formatter.js";
import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import type { Queue } from "./contracts/queue.js";
import type { Storage } from "./contracts/storage.js";
import type { RendererSettings } from "./settings.js";

/**
 * Tokens plugins register under, in the renderer's own child container: a ready-made object
 * with `context.provide(TOKEN, value)`, a class through `context.container`.
 */
export const ENGINE: InjectionToken<Engine> = Symbol.for("renderkit.engine");
export const FORMATTER: InjectionToken<Formatter> = Symbol.for("renderkit.formatter");
export const STORAGE: InjectionToken<Storage> = Symbol.for("renderkit.storage");
export const QUEUE: InjectionToken<Queue> = Symbol.for("renderkit.queue");
export const NOTIFIER: InjectionToken<Notifier> = Symbol.for("renderkit.notifier");
export const LOGGER: InjectionToken<Logger> = Symbol.for("renderkit.logger");
export const SETTINGS: InjectionToken<RendererSettings> = Symbol.for("renderkit.settings");
