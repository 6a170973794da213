import type { Config } from "@ghostery/adblocker";

/**
 * How the filter engine is built: network and cosmetic (element hiding) filters, exceptions
 * included. Scriptlets, extended (procedural) selectors, CSP and HTML filters are left out: the
 * renderer injects only a style sheet and never rewrites responses.
 */
export const ENGINE_CONFIG: Partial<Config> = {
  loadNetworkFilters: true,
  loadCosmeticFilters: true,
  loadGenericCosmeticsFilters: true,
  loadExceptionFilters: true,
  loadExtendedSelectors: false,
  loadCSPFilters: false,
  enableHtmlFiltering: false,
  enableMutationObserver: false,
  enableOptimizations: true,
  enableCompression: false,
  guessRequestTypeFromUrl: false,
  debug: false,
};
