import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on a free port of 127.0.0.1; resolves with the port, rejects when listening fails. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
