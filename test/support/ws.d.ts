// The `ws` package ships no type declarations (they are @types/ws, not installed): the parts the
// tests use — a WebSocket client, and a server attached to an http.Server.
declare module "ws" {
  import type { ClientRequest, IncomingMessage, Server as HttpServer } from "node:http";
  import type { EventEmitter } from "node:events";
  import type { SecureContextOptions } from "node:tls";

  export class WebSocket extends EventEmitter {
    constructor(address: string, protocols?: string | string[], options?: SecureContextOptions & { headers?: Record<string, string>; rejectUnauthorized?: boolean });
    constructor(address: string, options?: SecureContextOptions & { headers?: Record<string, string>; rejectUnauthorized?: boolean });
    readonly protocol: string;
    readonly readyState: number;
    send(data: string | Buffer, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: "close", listener: (code: number, reason: Buffer) => void): this;
    on(event: "unexpected-response", listener: (req: ClientRequest, res: IncomingMessage) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
    once(event: "message", listener: (data: Buffer, isBinary: boolean) => void): this;
    once(event: "unexpected-response", listener: (req: ClientRequest, res: IncomingMessage) => void): this;
    once(event: string, listener: (...args: any[]) => void): this;
  }

  export interface ServerOptions {
    server?: HttpServer;
    noServer?: boolean;
    handleProtocols?: (protocols: Set<string>, req: IncomingMessage) => string | false;
    verifyClient?: (info: { req: IncomingMessage; origin: string; secure: boolean }) => boolean;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions);
    on(event: "connection", listener: (ws: WebSocket, req: IncomingMessage) => void): this;
    on(event: "headers", listener: (headers: string[], req: IncomingMessage) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
    readonly clients: Set<WebSocket>;
    handleUpgrade(req: IncomingMessage, socket: import("node:stream").Duplex, head: Buffer, cb: (ws: WebSocket, req: IncomingMessage) => void): void;
    close(cb?: () => void): void;
  }
}
