/**
 * The dependency rules of renderkit, checked by `npm run deps` (the `deps` step of scripts/test.sh).
 *
 * They run on the TypeScript sources, not on the built `dist`: a type-only import (`import type`)
 * disappears from the JavaScript, but it still ties two files together, so every rule counts it.
 * Workspace packages are resolved through node_modules, as a user's install would: an import of
 * `@renderkit/core/chromium` lands on `node_modules/@renderkit/core/dist/chromium/...`, while a
 * relative path into another package lands on that package's folder (`core/src/...`).
 *
 * A production source is a file under `core/src`, `plugins/<name>/src` or `server/src`; tests
 * (`<package>/test`, `test/`) are cruised too, for cycles and for what they may import.
 * docs/architecture.md explains the layers these rules keep.
 */

const PRODUCTION = "^(core|plugins/[^/]+|server)/src/";
const TESTS = "^((core|plugins/[^/]+|server)/test|test)/";

/** An import of `@renderkit/<a plugin>` or `@renderkit/server`. */
const OTHER_RENDERKIT_PACKAGE = "^node_modules/@renderkit/(?!core/)";
/** Core's Chromium runtime and its contract suites, reached by package (`/chromium`, `/testing`) or by path. */
const CHROMIUM = ["^core/(src|dist)/chromium/", "^node_modules/@renderkit/core/dist/chromium/"];
const TESTING = ["^core/(src|dist)/testing/", "^node_modules/@renderkit/core/dist/testing/"];

/**
 * The server's folders, from the bottom up (server/README.md, "Source layout"). A folder imports
 * only its own files and the folders of the levels before it; the entry points at the root of
 * `server/src` import anything, and no folder imports them.
 */
const SERVER_LEVELS = [
  ["config"],
  ["state"],
  ["projects"],
  ["renderer"],
  ["observability", "http", "cli", "doctor"],
  ["openapi"],
  ["routes"],
];

const serverLevelRules = SERVER_LEVELS.map((level, index) => {
  const before = SERVER_LEVELS.slice(0, index).flat();
  const allowed = before.length > 0 ? `(${before.join("|")}|$1)` : "$1";
  return {
    name: `server-folder-order-${level.join("-")}`,
    comment:
      `${level.map((folder) => `server/src/${folder}/`).join(", ")} may import only ` +
      `${before.map((folder) => `server/src/${folder}/`).join(", ")}${before.length > 0 ? " and " : ""}its own folder. ` +
      "The server is built in levels (server/README.md, Source layout): a folder that reached up to a " +
      "later one, or to an entry point at the root, would tie the lower level to everything above it and bring back cycles.",
    severity: "error",
    from: { path: `^server/src/(${level.join("|")})/` },
    to: { path: "^server/src/", pathNot: `^server/src/${allowed}/` },
  };
});

/** A folder of `server/src` missing from SERVER_LEVELS would escape the order: name it there. */
const serverFolderListed = {
  name: "server-folder-in-order",
  comment:
    "Every folder of server/src has its place in the order above (server/README.md, Source layout). A new folder " +
    "goes into SERVER_LEVELS of .dependency-cruiser.cjs and into the README's table, at the level of what it imports.",
  severity: "error",
  from: { path: `^server/src/(?!(${SERVER_LEVELS.flat().join("|")})/)[^/]+/` },
  to: {},
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment:
        "Files that import each other, even only for types, cannot be read, tested or moved one at a time: each needs " +
        "the others first. Break the cycle by moving what both need into a module beneath them.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "contracts-are-the-bottom-layer",
      comment:
        "core/src/contracts/ holds the interfaces every plugin implements. It imports only other contracts and Node's " +
        "built-ins, so a plugin author reads the contracts alone, and no change to options, the Renderer or the " +
        "runtime reaches them. A type a contract needs moves into contracts/.",
      severity: "error",
      from: { path: "^core/src/contracts/" },
      to: { dependencyTypesNot: ["core"], pathNot: "^core/src/contracts/" },
    },
    {
      name: "framework-never-imports-chromium",
      comment:
        "The Chromium runtime (core/src/chromium/) is what the Chromium engines are built from. The framework (the rest " +
        "of core: contracts, options, the Renderer, the page pipeline) works with any engine through the Engine " +
        "contract, so it never imports the runtime.",
      severity: "error",
      from: { path: "^core/src/", pathNot: "^core/src/chromium/" },
      to: { path: CHROMIUM },
    },
    {
      name: "chromium-uses-core-entry-modules",
      comment:
        "The Chromium runtime imports the rest of core only through core's entry modules (index.ts, exports/page.ts, " +
        "exports/internal.ts), as an engine outside core would; besides those, only Node's built-ins, ws and its own " +
        "files. So the framework's inner files can change without the runtime noticing, and the runtime could leave " +
        "core as a package of its own.",
      severity: "error",
      from: { path: "^core/src/chromium/" },
      to: {
        dependencyTypesNot: ["core"],
        pathNot: ["^core/src/chromium/", "^core/src/index[.]ts$", "^core/src/exports/(page|internal)[.]ts$", "^node_modules/ws/"],
      },
    },
    {
      name: "plugins-use-the-core-package",
      comment:
        "A plugin imports core as a user's plugin would: the package @renderkit/core and its subpaths (/page, " +
        "/internal, /chromium, /testing), never a relative path into core/. Core's inner files are not an interface, " +
        "and the published plugin would not find them. (A plugin's tests may reach a built module of core/dist that " +
        "no entry exports, as core's own tests do.)",
      severity: "error",
      from: { path: "^plugins/[^/]+/src/" },
      to: { path: "^core/" },
    },
    {
      name: "plugins-are-independent",
      comment:
        "Each plugin stands alone and depends only on core: a host installs the plugins it wants, in any mix. A " +
        "plugin's tests may use another plugin (an engine to render with), declared as a devDependency; its sources never.",
      severity: "error",
      from: { path: "^plugins/([^/]+)/src/" },
      to: { path: ["^plugins/", OTHER_RENDERKIT_PACKAGE], pathNot: "^plugins/$1/" },
    },
    {
      name: "core-imports-no-plugin-or-server",
      comment:
        "Core is the bottom package: plugins and the server build on it. Core reaches a plugin only through a " +
        "contract and a token, at run time; an import the other way would make every plugin a part of core.",
      severity: "error",
      from: { path: "^core/src/" },
      to: { path: ["^(plugins|server)/", OTHER_RENDERKIT_PACKAGE] },
    },
    {
      name: "only-engines-use-chromium",
      comment:
        "@renderkit/core/chromium is the toolbox of the Chromium engines, not covered by semver. Formatters, storages, " +
        "queues and notifiers work through the contracts (and /page), so they run on any engine, the fake one " +
        "included. The server's doctor is the one exception: it uses findChromium to report the browser it finds.",
      severity: "error",
      from: { path: "^(plugins/[^/]+|server)/", pathNot: ["^plugins/engine-[^/]+/", "^server/src/doctor/", TESTS] },
      to: { path: CHROMIUM },
    },
    {
      name: "testing-only-in-tests",
      comment:
        "core/src/testing (@renderkit/core/testing) holds the contract suites and the fake engine, which import vitest. " +
        "Only tests and examples use them; a production source that imported them would pull a test runner into a render.",
      severity: "error",
      from: { path: PRODUCTION, pathNot: "^core/src/testing/" },
      to: { path: TESTING },
    },
    {
      name: "tests-use-the-built-output",
      comment:
        "Tests run against what users run: the built dist, through the package names or a relative path into " +
        "<package>/dist. A test that imported src would test code that no user runs, and a test suite that mixed both " +
        "would load two copies of the same module (two registries, two error classes).",
      severity: "error",
      from: { path: TESTS },
      to: { path: PRODUCTION },
    },
    {
      name: "no-dev-dependency-in-production",
      comment:
        "A production source imports only what its package.json lists in dependencies or peerDependencies: a package " +
        "listed only in devDependencies is not installed for users. Type-only imports count too: they stay in the " +
        "published .d.ts files, which users' compilers read.",
      severity: "error",
      from: { path: PRODUCTION },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm", "npm-peer", "npm-optional"] },
    },
    {
      name: "no-unlisted-dependency-in-production",
      comment:
        "A production source imports no package that its own package.json does not list: in the repository it is " +
        "found in the root node_modules, in a user's install it is missing.",
      severity: "error",
      from: { path: PRODUCTION },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"], dependencyTypesNot: ["npm", "npm-peer", "npm-optional", "npm-dev"] },
    },
    {
      name: "no-unresolvable-import",
      comment: "An import that cannot be resolved is one the rules above cannot see: make it resolve (or fix its path).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    ...serverLevelRules,
    serverFolderListed,
  ],
  options: {
    // Type-only imports are dependencies too (see above).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    // Workspace packages resolve through their node_modules link, as in a user's install, so that
    // the package manifests say which kind of dependency an import is.
    preserveSymlinks: true,
    doNotFollow: { path: ["node_modules", "(^|/)dist/"] },
    moduleSystems: ["es6", "cjs"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["types", "import", "node", "default"],
      mainFields: ["types", "module", "main"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
