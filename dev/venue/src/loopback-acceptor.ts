// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import type { Server } from "node:net";
import type { IJsFixConfig } from "jspurefix";
import { TcpAcceptor } from "jspurefix/dist/transport/tcp/tcp-acceptor.js";

/**
 * jspurefix's TcpAcceptor listens on every interface (it reads the port, not the host) and
 * throws from its server's error event, which would crash the process on a port in use. This
 * one listens on the configured host and reports the bound port, or the listen error, through
 * `listening`.
 */
export class HostBoundTcpAcceptor extends TcpAcceptor {
  readonly listening: Promise<number>;
  private settle!: { resolve: (port: number) => void; reject: (e: Error) => void };

  constructor(config: IJsFixConfig) {
    super(config);
    this.listening = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Keep the promise from counting as unhandled when nobody awaits it before it fails.
    this.listening.catch(() => {});
    const server = this.netServer();
    server.removeAllListeners("error");
    server.on("error", (e: Error) => this.settle.reject(e));
  }

  override listen(): void {
    const tcp = this.config.description.application?.tcp;
    const server = this.netServer();
    server.once("listening", () => {
      const address = server.address();
      this.settle.resolve(typeof address === "object" && address ? address.port : 0);
    });
    server.listen(tcp?.port ?? 0, tcp?.host ?? "127.0.0.1");
  }

  private netServer(): Server {
    return (this as unknown as { server: Server }).server;
  }
}
