/** Option names as clients spell them and as the catalogue does. */

/** `full_page` / `full-page` / `fullPage` → `fullPage`. */
export function camelize(name: string): string {
  return name.replace(/[_-]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `fullPage` → `full_page` (the catalogue's spelling, used in messages). */
export function snakeName(name: string): string {
  // A digit run starts a word only when letters follow it: `failOn4xx` → `fail_on_4xx`, `useS3` → `use_s3`.
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d+[a-z])/g, "$1_$2");
}
