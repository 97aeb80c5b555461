/** The part of autocannon 8's programmatic API the GraphQL bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: readonly { setupRequest?: (request: RawRequest) => RawRequest }[];
    verifyBody?: (body: string) => boolean;
  }

  export interface Result {
    readonly errors: number;
    readonly timeouts: number;
    readonly mismatches: number;
    readonly non2xx: number;
    readonly duration: number;
  }

  export interface Instance extends EventEmitter {
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    on(event: 'done', listener: (result: Result) => void): this;
    stop(): void;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
