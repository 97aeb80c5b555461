import http from 'node:http';

/** An answer: its status and body. */
export interface Answer {
  readonly status: number;
  readonly text: string;
}

/**
 * POSTs over kept-alive sockets with node:http. The load generator shares the machine's two CPUs
 * with the services and PostgreSQL; `fetch` spent about 1 ms of CPU per request here, as much as a
 * third of what the service under test spends, so it would cap the faster side first.
 */
export function keepAlivePost(
  baseUrl: string,
  sockets: number,
): (path: string, headers: Readonly<Record<string, string>>, body: string) => Promise<Answer> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const { hostname, port } = new URL(baseUrl);
  return (path, headers, body) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        { agent, hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}
