import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** The sealing of the keys kept in `projects.json`: AES-256-GCM under the master key (`secrets.ts`). */

/** An AES-256-GCM ciphertext, fields base64url; the additional data binds it to project and field. */
export interface Sealed {
  alg: "aes-256-gcm";
  iv: string;
  tag: string;
  data: string;
}

export function seal(key: Buffer, plain: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(aad, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return {
    alg: "aes-256-gcm",
    iv: iv.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
    data: data.toString("base64url"),
  };
}

export function unseal(key: Buffer, sealed: Sealed, aad: string): string {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64url")).setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64url")), decipher.final()]).toString("utf8");
}

/** Additional authenticated data: a ciphertext moved to another project or field fails to open. */
export const aadOf = (id: string, field: string): string => `renderkit:${id}:${field}`;
