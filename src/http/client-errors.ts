import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';
import { toProblem } from './problem.js';

/**
 * Answers a request Node's HTTP parser refused before any route saw it: headers (the URL counts)
 * over the server's limit are a 431, a request that took too long a 408, anything else malformed a
 * 400, each as a problem document with `Connection: close`, and the socket then closed gracefully.
 * Fastify's default wrote no `Connection: close` and destroyed the socket, so a client that kept
 * the connection alive lost its next, innocent request to ECONNRESET.
 */
export function clientErrorHandler(log: FastifyBaseLogger): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const refusal =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('HEADERS_TOO_LARGE', 'the request line and headers are larger than the server accepts (16 KiB)')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('REQUEST_TIMEOUT', 'the request was not received in time')
          : new AppError('VALIDATION', 'the request is not well-formed HTTP');
    const problem = toProblem(refusal);
    log.debug({ err: error, status: problem.status }, 'refused a malformed request');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\nConnection: close\r\n` +
        `Content-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };
}
