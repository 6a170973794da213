import { RenderError } from "@renderkit/core";
import type { Project } from "../config/types.js";
import type { ProjectStore } from "../projects/store.js";

/** A bearer token: printable ASCII without spaces, 8 to 256 characters. */
const TOKEN = /^[\x21-\x7e]{8,256}$/;
const FORMAT_HINT = "API key not sent in the right format: send Authorization: Bearer <secret key>";

/**
 * The project an `Authorization: Bearer <secret key>` header names (spec "Authentication").
 * Throws `NoApiKeySupplied`, `ApiKeyWrongFormat`, `ApiKeyNotFound` or `ProjectNotEnabled`;
 * no message ever repeats the presented key.
 */
export function authenticate(header: string | null | undefined, store: ProjectStore): Project {
  const value = header?.trim() ?? "";
  if (value === "") throw new RenderError("NoApiKeySupplied", "No API key: send Authorization: Bearer <secret key>");
  const parts = value.split(/[ \t]+/);
  const [scheme, token] = parts;
  if (parts.length !== 2 || scheme?.toLowerCase() !== "bearer" || !token || !TOKEN.test(token)) {
    throw new RenderError("ApiKeyWrongFormat", FORMAT_HINT);
  }
  const project = store.bySecretKey(token);
  if (!project) {
    // Publishable keys are public, so saying that one was sent instead of a secret key reveals nothing.
    const why = store.byPublishableKey(token) ? ": that is a publishable key; the API needs the project's secret key" : "";
    throw new RenderError("ApiKeyNotFound", `API key not found${why}`);
  }
  if (!project.enabled) throw new RenderError("ProjectNotEnabled", "This project is not enabled");
  return project;
}
